// python_packages: distributions of the system's Pythons and of users' ~/.local, from their core metadata; a user's
// files are read only when they are the user's own (a link there to another file gives nothing).
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "tap";
import { collectLinux } from "../../services/agent/telemetry/linux.js";
import { parseCoreMetadata } from "../../services/agent/telemetry/python-packages.js";

function tree(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "inquest-pypkg-"));
  const put = (rel: string, content: string) => {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  };
  const uid = process.getuid?.() ?? 1000;
  put("etc/passwd", `root:x:0:0:root:/root:/bin/bash\nml:x:${uid}:${uid}::/home/ml:/bin/bash\n`);
  put("etc/shadow", "root:$6$secretsalt$hashhashhash:19000:0:99999:7:::\n");
  put("usr/lib/python3/dist-packages/requests-2.28.1.dist-info/METADATA", "Metadata-Version: 2.1\nName: requests\nVersion: 2.28.1\nSummary: Python HTTP for Humans.\nAuthor: Kenneth Reitz\nLicense: Apache 2.0\n\nName: not-a-header\n");
  put("usr/local/lib/python3.11/site-packages/ultralytics-8.3.41.dist-info/METADATA", "Metadata-Version: 2.1\nName: ultralytics\nVersion: 8.3.41\nSummary: Ultralytics YOLO\nAuthor-email: Glenn Jocher <glenn.jocher@ultralytics.com>\nLicense: AGPL-3.0\n");
  put("usr/local/lib/python3.11/site-packages/ultralytics/__init__.py", "");
  put("usr/lib64/python3.9/site-packages/six-1.16.0.egg-info", "Metadata-Version: 1.2\nName: six\nVersion: 1.16.0\n");
  put("usr/lib64/python3.9/site-packages/PyYAML-5.4.1-py3.9.egg-info/PKG-INFO", "Metadata-Version: 1.1\nName: PyYAML\nVersion: 5.4.1\n");
  put("home/ml/.local/lib/python3.11/site-packages/torch-2.5.1.dist-info/METADATA", "Metadata-Version: 2.1\nName: torch\nVersion: 2.5.1\n");
  // A link in the user's directory to a file outside it (root could read it): never read as theirs.
  fs.mkdirSync(path.join(root, "home/ml/.local/lib/python3.11/site-packages/evil-1.0.dist-info"), { recursive: true });
  fs.symlinkSync(path.join(root, "usr/local/lib/python3.11/site-packages/ultralytics-8.3.41.dist-info/METADATA"), path.join(root, "home/ml/.local/lib/python3.11/site-packages/evil-1.0.dist-info/METADATA"));
  return root;
}

test("core metadata headers end at the first blank line; the first of a repeated header counts", async (t) => {
  const m = parseCoreMetadata(["Name: a", "Version: 1", "Name: b", "Description: x", "  continued", "", "Version: 9"]);
  t.equal(m.get("name"), "a");
  t.equal(m.get("version"), "1");
});

test("python_packages: system site- and dist-packages, .egg-info files and directories, a user's ~/.local", async (t) => {
  const root = tree();
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }));
  const { python_packages: rows = [] } = await collectLinux(["python_packages"], { root });
  const by = new Map(rows.map((r) => [`${r.name} ${r.version}`, r]));
  t.same([...by.keys()].sort(), ["PyYAML 5.4.1", "requests 2.28.1", "six 1.16.0", "torch 2.5.1", "ultralytics 8.3.41"]);
  t.match(by.get("requests 2.28.1"), { summary: "Python HTTP for Humans.", author: "Kenneth Reitz", license: "Apache 2.0", path: "/usr/lib/python3/dist-packages/requests-2.28.1.dist-info", directory: "/usr/lib/python3/dist-packages", uid: "" });
  t.match(by.get("ultralytics 8.3.41"), { author: "Glenn Jocher <glenn.jocher@ultralytics.com>", directory: "/usr/local/lib/python3.11/site-packages" });
  t.equal(by.get("six 1.16.0")?.path, "/usr/lib64/python3.9/site-packages/six-1.16.0.egg-info", "an .egg-info file is its own path");
  t.equal(by.get("PyYAML 5.4.1")?.path, "/usr/lib64/python3.9/site-packages/PyYAML-5.4.1-py3.9.egg-info");
  t.match(by.get("torch 2.5.1"), { directory: "/home/ml/.local/lib/python3.11/site-packages", uid: String(process.getuid?.() ?? 1000) });
  t.equal(rows.filter((r) => r.name === "ultralytics").length, 1, "the link in the user's directory is not read");
});

test("python_packages: the row cap holds and names the table", async (t) => {
  const root = tree();
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }));
  const capped: string[] = [];
  const { python_packages: rows = [] } = await collectLinux(["python_packages"], { root, maxRowsPerTable: 2, onCapped: (table) => capped.push(table) });
  t.equal(rows.length, 2);
  t.same(capped, ["python_packages"]);
});
