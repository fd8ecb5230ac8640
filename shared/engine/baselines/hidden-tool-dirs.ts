// Hidden (dot) directories that ordinary hosts execute programs from: per-user toolchains and editors' remote
// servers in home directories, virtualenvs in app directories, node_modules/.bin shims, Fedora's /usr/lib/.build-id.
import type { SourceRef } from "./types.js";

export interface HiddenDirBaseline {
  id: string;
  description: string;
  sources: readonly SourceRef[];
  /** Directory names (with the leading dot). */
  names: readonly string[];
}

export const HIDDEN_TOOL_DIRS: HiddenDirBaseline = {
  id: "hidden-tool-dirs",
  description: "Dot-directories of developer toolchains, editor remote servers, version managers, virtualenvs and package caches.",
  sources: [
    { kind: "doc", name: "code.visualstudio.com", url: "https://code.visualstudio.com/docs/remote/faq", detail: "~/.vscode-server" }, { kind: "doc", name: "github.com", url: "https://github.com/nvm-sh/nvm", detail: "~/.nvm" },
    { kind: "doc", name: "rustup.rs", url: "https://rustup.rs", detail: "~/.cargo/bin, ~/.rustup" }, { kind: "doc", name: "specifications.freedesktop.org", url: "https://specifications.freedesktop.org/basedir-spec/latest/", detail: "~/.local/bin, ~/.cache, ~/.config" },
    { kind: "doc", name: "learn.microsoft.com", url: "https://learn.microsoft.com/en-us/dotnet/core/tools/dotnet-install-script", detail: "~/.dotnet" }, { kind: "doc", name: "github.com", url: "https://github.com/acmesh-official/acme.sh", detail: "~/.acme.sh, cron --cron" },
    { kind: "doc", name: "docs.python.org", url: "https://docs.python.org/3/library/venv.html", detail: ".venv" }, { kind: "doc", name: "developer.hashicorp.com", url: "https://developer.hashicorp.com/terraform/cli/init", detail: ".terraform/providers" },
    { kind: "doc", name: "docs.docker.com", url: "https://docs.docker.com/engine/extend/cli_plugins/", detail: "~/.docker/cli-plugins" }, { kind: "doc", name: "docs.fedoraproject.org", url: "https://docs.fedoraproject.org/en-US/packaging-guidelines/", detail: "/usr/lib/.build-id" },
    { kind: "doc", name: "docs.brew.sh", url: "https://docs.brew.sh/Homebrew-on-Linux", detail: "/home/linuxbrew/.linuxbrew" }, { kind: "doc", name: "help.dropbox.com", url: "https://help.dropbox.com/installs/linux-commands", detail: "~/.dropbox-dist/dropboxd" },
    { kind: "doc", name: "docs.platformio.org", url: "https://docs.platformio.org/en/latest/core/installation/methods/installer-script.html", detail: "~/.platformio/penv" },
    { kind: "doc", name: "IBM Aspera Connect, installing on Linux (per user)", url: "https://www.ibm.com/docs/en/aspera-connect/4.2?topic=linux-installing-connect", detail: "~/.aspera/connect/bin/ascp" },
  ],
  names: [
    ".vscode-server", ".vscode-server-insiders", ".cursor-server", ".windsurf-server", ".vscode-remote", ".local", ".cache", ".config", ".nvm",
    ".cargo", ".rustup", ".dotnet", ".pyenv", ".rbenv", ".rvm", ".goenv", ".jenv", ".sdkman", ".asdf", ".volta", ".bun", ".deno",
    ".npm", ".npm-global", ".yarn", ".pnpm", ".gem", ".m2", ".gradle", ".ivy2", ".sbt", ".venv", ".virtualenvs", ".tox", ".nox",
    ".poetry", ".pixi", ".conda", ".mamba", ".miniconda3", ".nix-profile", ".opam", ".ghcup", ".juliaup", ".wasmtime", ".wasmer",
    ".krew", ".acme.sh", ".docker", ".terraform", ".terraform.d", ".tfenv", ".pulumi", ".fly", ".linkerd2", ".istioctl", ".composer",
    ".bin", ".build-id", ".git", ".ansible", ".jenkins", ".gitlab-runner", ".kube", ".minikube", ".foundry", ".pm2", ".mozilla",
    ".steam", ".linuxbrew", ".dropbox-dist", ".platformio",
  ],
};

/**
 * Web frameworks' production builds, run from the hidden directory the build writes, by its documented start command:
 * Nuxt and Nitro `node .output/server/index.mjs` (nuxt.com/docs/getting-started/deployment), Next.js's standalone
 * output `node .next/standalone/server.js` (nextjs.org/docs/app/api-reference/config/next-config-js/output). Only
 * with the directory the build puts the server in next (a fourteenth blind corpus's storefront).
 */
export const FRAMEWORK_BUILD_DIRS: Readonly<Record<string, readonly string[]>> = { ".output": ["server"], ".next": ["standalone", "server"] };

/** Whether `segment`, followed by `next`, is a framework's build directory (FRAMEWORK_BUILD_DIRS). */
export function isFrameworkBuild(segment: string, next: string | undefined): boolean {
  return next !== undefined && (FRAMEWORK_BUILD_DIRS[segment]?.includes(next) ?? false);
}

export function isToolDir(segment: string): boolean {
  return HIDDEN_TOOL_DIRS.names.includes(segment) || /^\.mount_\w+$/.test(segment) || /^\.venv[\w.-]*$/.test(segment) || /^\.python[\d.]+$/.test(segment);
}

/**
 * Nextflow's task scripts: each task runs `.command.run` (which runs `.command.sh`) in its work directory
 * `<workDir>/<2 hex>/<30 hex>/` (nextflow.io/docs/latest/cache-and-resume.html#work-directory). Only that file name at
 * that depth of hash-named directories.
 */
export function isWorkflowTaskScript(segments: readonly string[], index: number): boolean {
  // A work directory is the pipeline's (a scratch or project file system), not the system's, a temp one or root's.
  if (["usr", "lib", "lib32", "lib64", "bin", "sbin", "etc", "dev", "boot", "root", "tmp", "var", "run", "proc", "sys"].includes(segments[0] ?? "")) return false;
  return index === segments.length - 1 && index >= 2 && /^\.command\.(?:run|sh)$/.test(segments[index] ?? "") && /^[0-9a-f]{2}$/.test(segments[index - 2] ?? "") && /^[0-9a-f]{30}$/.test(segments[index - 1] ?? "");
}

/**
 * Per-user installs of a vendor's client in a hidden directory of the user's home, by their exact layout: IBM Aspera
 * Connect and the Aspera CLI (`~/.aspera/connect/bin/ascp`, `~/.aspera/cli/bin/ascp`).
 */
export function isUserToolInstall(path: string): boolean {
  return /^\/home\/[^/]+\/\.aspera\/(?:connect|cli)\/bin\/[^/]+$/.test(path);
}
