// Writes shared/engine/baselines/kernel-modules-mainline.ts: the names of the modules the Linux source can build that
// no Debian package list of ours already holds. Read from the source as Debian packages it (linux-source-6.1):
//   apt-get download linux-source-6.1 && dpkg-deb --fsys-tarfile linux-source-6.1_*.deb | tar -x --wildcards '*.tar.xz'
//   xz -dc usr/src/linux-source-6.1.tar.xz | tar -x --wildcards '*/Makefile' '*/Kbuild' '*/Kconfig*'
//   node dist/scripts/kernel-module-names.js linux-source-6.1 6.1.192-3 > shared/engine/baselines/kernel-modules-mainline.ts
// A module is what a Makefile or Kbuild adds with `obj-m` or `obj-$(CONFIG_X)` where X is a `tristate` in a Kconfig
// (a `bool` builds into the kernel only): `obj-$(CONFIG_PATA_ACPI) += pata_acpi.o` names pata_acpi. Names are
// normalised as /proc/modules shows them ('-' becomes '_').
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isPackagedKernelModule } from "../shared/engine/baselines/index.js";

function* files(dir: string, keep: (name: string) => boolean): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) yield* files(join(dir, e.name), keep);
    else if (keep(e.name)) yield join(dir, e.name);
  }
}

function tristates(root: string): Set<string> {
  const out = new Set<string>();
  for (const f of files(root, (n) => n.startsWith("Kconfig"))) {
    let current: string | undefined;
    for (const line of readFileSync(f, "utf8").split("\n")) {
      const config = /^\s*(?:menu)?config\s+([A-Z0-9_]+)\s*$/.exec(line);
      if (config) {
        current = config[1];
        continue;
      }
      const type = /^\s*(tristate|bool|def_tristate|def_bool)\b/.exec(line);
      if (type && current !== undefined) {
        if (type[1]?.includes("tristate")) out.add(current);
        current = undefined;
      }
    }
  }
  return out;
}

function moduleNames(root: string, modular: Set<string>): Set<string> {
  const out = new Set<string>();
  for (const f of files(root, (n) => n === "Makefile" || n === "Kbuild")) {
    for (const line of readFileSync(f, "utf8").replace(/\\\n/g, " ").split("\n")) {
      const m = /^\s*obj-(?:\$\(CONFIG_([A-Z0-9_]+)\)|(m))\s*[+:]?=\s*(.*)$/.exec(line);
      if (!m || (m[1] !== undefined && !modular.has(m[1]))) continue;
      for (const word of (m[3] ?? "").split(/\s+/)) {
        if (word.startsWith("#")) break;
        if (!word.endsWith(".o")) continue;
        const name = (word.slice(0, -2).split("/").pop() ?? "").replace(/-/g, "_");
        if (/^[A-Za-z0-9_]+$/.test(name)) out.add(name);
      }
    }
  }
  return out;
}

const [root, version] = process.argv.slice(2);
if (!root || !version) {
  process.stderr.write("usage: node dist/scripts/kernel-module-names.js <linux-source dir> <package version>\n");
  process.exit(2);
}
const all = moduleNames(root, tristates(root));
// Names another baseline already explains stay there (this list is the fallback; it is read last).
const explained = (n: string): boolean => {
  const e = isPackagedKernelModule(n);
  return e !== undefined && e.baseline !== "kmod:mainline-in-tree";
};
const added = [...all].filter((n) => !explained(n)).sort();
const lines: string[] = [];
let line = "";
for (const n of added) {
  if (line.length + n.length + 1 > 118) {
    lines.push(line);
    line = n;
  } else line = line === "" ? n : `${line} ${n}`;
}
if (line !== "") lines.push(line);
process.stdout.write(`// Generated from linux-source-6.1 by scripts/kernel-module-names.ts (docs/baselines.md): kernel module names the Linux
// source can build that no Debian package list of ours holds: in-tree drivers other distributions' kernels build as modules (Ubuntu's
// pata_acpi, Alpine's simpledrm), so a host on such a kernel loads them. ${all.size} names in all, ${added.length} here.
import type { SourceRef } from "./types.js";

export const MAINLINE_6_1_SOURCE: SourceRef = { kind: "debian-package", name: "linux-source-6.1", version: ${JSON.stringify(version)}, release: "bookworm", detail: "every obj-m or tristate obj-$(CONFIG_...) object of the kernel's Makefiles and Kbuild files" };

/** ${added.length} module names, sorted, space-separated. */
export const MAINLINE_6_1_MODULES = \`
${lines.join("\n")}
\`;
`);
