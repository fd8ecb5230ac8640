// What every baseline entry carries: where the fact was read.

export interface SourceRef {
  /** debian-package: read from the .deb (dpkg -c / control scripts); doc: a project's documentation; wiki: a wiki page. */
  kind: "debian-package" | "upstream-package" | "doc" | "wiki";
  /** Package name, or the page's title. */
  name: string;
  /** Package version as the archive lists it. */
  version?: string;
  /** Distribution release the package was taken from (bookworm). */
  release?: string;
  url?: string;
  /** What in the source (file, maintainer-script line, section). */
  detail?: string;
}

/** What a query returns when a baseline explains a row: the baseline id (goes to `kept_by`) and its source. */
export interface Explanation {
  baseline: string;
  source: string;
}

export function describeSource(s: SourceRef): string {
  const head = s.kind === "debian-package" ? `Debian ${s.release ?? ""} package ${s.name}${s.version ? ` ${s.version}` : ""}`.replace(/\s+/g, " ") : s.name;
  const where = s.url ? ` <${s.url}>` : "";
  return `${head}${where}${s.detail ? ` (${s.detail})` : ""}`;
}

export function explain(baseline: string, source: SourceRef): Explanation {
  return { baseline, source: describeSource(source) };
}

/** The first 15 characters of a program name: what the kernel keeps in comm and osquery shows as processes.name. */
export function commName(name: string): string {
  return name.slice(0, 15);
}
