// Download hosts of well-known software releases: CI jobs and admins fetch toolchains and binaries from these into
// /tmp all day (nodejs.org tarballs, Go, kubectl, Terraform, Helm). A host may add its own with the tag
// `allowed_download_hosts` (comma-separated host names or suffixes).
import type { SourceRef } from "./types.js";

export interface HostBaseline {
  id: string;
  description: string;
  sources: readonly SourceRef[];
  /** Host names; a name also covers its subdomains. */
  hosts: readonly string[];
  /** URL prefixes for shared hosts where only part of the site is release downloads. */
  prefixes: readonly RegExp[];
}

export const RELEASE_HOSTS: HostBaseline = {
  id: "release-download-hosts",
  description: "Official download hosts of language runtimes, Kubernetes and cloud tooling, and OS distributions.",
  sources: [
    { kind: "doc", name: "nodejs.org", url: "https://nodejs.org/dist/" }, { kind: "doc", name: "go.dev", url: "https://go.dev/dl/" }, { kind: "doc", name: "kubernetes.io", url: "https://kubernetes.io/docs/tasks/tools/install-kubectl-linux/", detail: "dl.k8s.io" },
    { kind: "doc", name: "releases.hashicorp.com", url: "https://releases.hashicorp.com/" }, { kind: "doc", name: "helm.sh", url: "https://helm.sh/docs/intro/install/", detail: "get.helm.sh" }, { kind: "doc", name: "docs.docker.com", url: "https://docs.docker.com/engine/install/", detail: "download.docker.com" },
    { kind: "doc", name: "docs.aws.amazon.com", url: "https://docs.aws.amazon.com/cli/latest/userguide/getting-started-install.html", detail: "awscli.amazonaws.com" },
    { kind: "doc", name: "docs.github.com", url: "https://docs.github.com/en/repositories/releasing-projects-on-github/linking-to-releases", detail: "github.com/<owner>/<repo>/releases/download/" },
  ],
  hosts: [
    "nodejs.org", "go.dev", "golang.org", "dl.google.com", "dl.k8s.io", "storage.googleapis.com/kubernetes-release", "releases.hashicorp.com",
    "get.helm.sh", "download.docker.com", "awscli.amazonaws.com", "objects.githubusercontent.com", "release-assets.githubusercontent.com",
    "files.pythonhosted.org", "pypi.org", "registry.npmjs.org", "repo.maven.apache.org", "repo1.maven.org", "downloads.apache.org",
    "archive.apache.org", "dlcdn.apache.org", "static.rust-lang.org", "deb.debian.org", "security.debian.org", "archive.ubuntu.com",
    "security.ubuntu.com", "releases.ubuntu.com", "cloud-images.ubuntu.com", "dl.fedoraproject.org", "mirrors.kernel.org", "cdn.kernel.org",
    "download.opensuse.org", "dl-cdn.alpinelinux.org", "packages.microsoft.com", "packages.cloud.google.com", "apt.releases.hashicorp.com",
    "deb.nodesource.com", "rpm.nodesource.com", "dl.yarnpkg.com", "artifacts.elastic.co", "dl.grafana.com", "nginx.org", "corretto.aws",
    "cdn.azul.com", "api.adoptium.net", "download.java.net", "services.gradle.org", "downloads.gradle.org", "cache.ruby-lang.org",
    "www.python.org", "julialang-s3.julialang.org", "get.jenkins.io", "pkg.jenkins.io", "download.postgresql.org", "ftp.postgresql.org",
    "dev.mysql.com", "downloads.mariadb.org", "fastdl.mongodb.org", "download.redis.io", "dl.min.io", "github.com/prometheus/",
  ],
  prefixes: [/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+\/releases\/download\//i],
};

/** Whether a URL points at a well-known release host, or at one the host's tags allow. */
export function isReleaseUrl(url: string, allowed: readonly string[] = []): boolean {
  if (RELEASE_HOSTS.prefixes.some((re) => re.test(url))) return true;
  const m = /^[a-z]+:\/\/(?:[^@/\s]*@)?([^/:?#\s]+)(?::\d+)?(\/[^\s?#]*)?/i.exec(url);
  if (!m) return false;
  const host = (m[1] ?? "").toLowerCase();
  const hostPath = `${host}${m[2] ?? ""}`;
  return [...RELEASE_HOSTS.hosts, ...allowed.map((a) => a.toLowerCase())].some((h) =>
    h.includes("/") ? hostPath.startsWith(h) : host === h || host.endsWith(`.${h}`),
  );
}
