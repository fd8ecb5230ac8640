// Debian package version ordering (dpkg's algorithm: epoch, upstream, revision; '~' sorts before anything).

interface DebVersion {
  epoch: number;
  upstream: string;
  revision: string;
}

export function parseDebVersion(version: string): DebVersion {
  let rest = version.trim();
  let epoch = 0;
  const colon = rest.indexOf(":");
  if (colon > 0 && /^\d+$/.test(rest.slice(0, colon))) {
    epoch = Number(rest.slice(0, colon));
    rest = rest.slice(colon + 1);
  }
  const dash = rest.lastIndexOf("-");
  if (dash < 0) return { epoch, upstream: rest, revision: "" };
  return { epoch, upstream: rest.slice(0, dash), revision: rest.slice(dash + 1) };
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

function order(c: string | undefined): number {
  if (c === undefined || isDigit(c)) return 0;
  if (c === "~") return -1;
  if (/[A-Za-z]/.test(c)) return c.charCodeAt(0);
  return c.charCodeAt(0) + 256;
}

function compareFragment(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    while ((i < a.length && !isDigit(a[i])) || (j < b.length && !isDigit(b[j]))) {
      const ac = order(a[i]);
      const bc = order(b[j]);
      if (ac !== bc) return ac - bc;
      i++;
      j++;
    }
    while (a[i] === "0") i++;
    while (b[j] === "0") j++;
    let firstDiff = 0;
    while (isDigit(a[i]) && isDigit(b[j])) {
      if (firstDiff === 0) firstDiff = a.charCodeAt(i) - b.charCodeAt(j);
      i++;
      j++;
    }
    if (isDigit(a[i])) return 1;
    if (isDigit(b[j])) return -1;
    if (firstDiff !== 0) return firstDiff;
  }
  return 0;
}

/** Negative when a < b, 0 when equal, positive when a > b (dpkg --compare-versions semantics). */
export function compareDebVersions(a: string, b: string): number {
  const va = parseDebVersion(a);
  const vb = parseDebVersion(b);
  if (va.epoch !== vb.epoch) return va.epoch - vb.epoch;
  const up = compareFragment(va.upstream, vb.upstream);
  if (up !== 0) return up;
  return compareFragment(va.revision, vb.revision);
}

/** introduced <= version < fixed. */
export function inVersionRange(version: string, introduced: string, fixed: string): boolean {
  return compareDebVersions(version, introduced) >= 0 && compareDebVersions(version, fixed) < 0;
}
