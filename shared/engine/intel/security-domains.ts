// Domains of security agents, cloud monitoring and OS package repositories. Pointing one of them at 127.0.0.1 or
// 0.0.0.0 in /etc/hosts silently cuts an agent off from its console or stops security updates: cloud miners (the
// TeamTNT/Kinsing family of dropper scripts) write such lines right after uninstalling Alibaba Cloud's Aegis
// ("0.0.0.0 100.100.25.3 jsrv.aegis.aliyun.com", "0.0.0.0 100.100.25.4 update.aegis.aliyun.co" in a public dropper
// with removealiyun()/initialrungo() functions). Used by security-tool-sinkhole.
//
// A pattern matches the name itself or any subdomain; "*" stands for exactly one label (a region).

export type SecurityDomainKind = "security-agent" | "cloud-monitoring" | "package-repository";

export interface SecurityDomain {
  pattern: string;
  vendor: string;
  kind: SecurityDomainKind;
  source: string;
}

const ALIYUN = "https://www.alibabacloud.com/help/en/security-center/user-guide/install-the-security-center-agent";

export const SECURITY_DOMAINS: readonly SecurityDomain[] = [
  // Security agents and their consoles.
  { pattern: "aegis.aliyun.com", vendor: "Alibaba Cloud Security Center (Aegis/AliYunDun)", kind: "security-agent", source: ALIYUN },
  { pattern: "aegis.aliyuncs.com", vendor: "Alibaba Cloud Security Center (Aegis/AliYunDun)", kind: "security-agent", source: ALIYUN },
  { pattern: "aegis.alicdn.com", vendor: "Alibaba Cloud Security Center (Aegis/AliYunDun)", kind: "security-agent", source: ALIYUN },
  // The misspelt name a miner dropper writes next to update.aegis.aliyun.com (see the header).
  { pattern: "aegis.aliyun.co", vendor: "Alibaba Cloud Security Center (as written by a miner dropper)", kind: "security-agent", source: "public miner dropper script (removealiyun/initialrungo)" },
  { pattern: "yd.qcloud.com", vendor: "Tencent Cloud Workload Protection (YunJing)", kind: "security-agent", source: "https://www.tencentcloud.com/document/product/296 (agent endpoints s/l/u.yd.qcloud.com)" },
  { pattern: "cloudsink.net", vendor: "CrowdStrike Falcon", kind: "security-agent", source: "https://falcon.crowdstrike.com/documentation (sensor cloud endpoints ts01-b.cloudsink.net, lfodown01-b.cloudsink.net)" },
  { pattern: "crowdstrike.com", vendor: "CrowdStrike", kind: "security-agent", source: "https://www.crowdstrike.com/" },
  { pattern: "nessus.org", vendor: "Tenable Nessus (plugin feeds and agent packages)", kind: "security-agent", source: "https://docs.tenable.com/nessus/ (plugins.nessus.org, downloads; Tenable's repositories for agent packages)" },
  { pattern: "tenable.com", vendor: "Tenable (Nessus Agent linking, cloud.tenable.com)", kind: "security-agent", source: "https://docs.tenable.com/nessus-agent/ (agents link to cloud.tenable.com)" },
  { pattern: "qualys.com", vendor: "Qualys Cloud Agent", kind: "security-agent", source: "https://docs.qualys.com/en/ca/ (agents report to qagpublic.*.qualys.com)" },
  { pattern: "rapid7.com", vendor: "Rapid7 Insight Agent", kind: "security-agent", source: "https://docs.rapid7.com/insight-agent/ (endpoints *.endpoint.ingress.rapid7.com)" },
  { pattern: "sentinelone.net", vendor: "SentinelOne", kind: "security-agent", source: "https://www.sentinelone.com/ (management consoles are <tenant>.sentinelone.net)" },
  { pattern: "trendmicro.com", vendor: "Trend Micro (Deep Security, Cloud One, Vision One)", kind: "security-agent", source: "https://help.deepsecurity.trendmicro.com/" },
  { pattern: "sophos.com", vendor: "Sophos Central", kind: "security-agent", source: "https://support.sophos.com/support/s/article/KB-000035154 (Sophos Central domains)" },
  { pattern: "sophosupd.com", vendor: "Sophos updates", kind: "security-agent", source: "https://support.sophos.com/support/s/article/KB-000035154" },
  { pattern: "sophosxl.net", vendor: "Sophos lookups", kind: "security-agent", source: "https://support.sophos.com/support/s/article/KB-000035154" },
  { pattern: "endpoint.security.microsoft.com", vendor: "Microsoft Defender for Endpoint", kind: "security-agent", source: "https://learn.microsoft.com/en-us/defender-endpoint/configure-device-connectivity" },
  { pattern: "wd.microsoft.com", vendor: "Microsoft Defender for Endpoint", kind: "security-agent", source: "https://learn.microsoft.com/en-us/defender-endpoint/linux-static-proxy-configuration" },
  { pattern: "securitycenter.windows.com", vendor: "Microsoft Defender for Endpoint", kind: "security-agent", source: "https://learn.microsoft.com/en-us/defender-endpoint/configure-device-connectivity" },
  { pattern: "conferdeploy.net", vendor: "VMware Carbon Black Cloud", kind: "security-agent", source: "https://docs.vmware.com/en/VMware-Carbon-Black-Cloud/ (defense-*.conferdeploy.net)" },
  { pattern: "paloaltonetworks.com", vendor: "Palo Alto Networks Cortex XDR", kind: "security-agent", source: "https://docs-cortex.paloaltonetworks.com/ (traps/xdr endpoints)" },
  { pattern: "eset.com", vendor: "ESET", kind: "security-agent", source: "https://support.eset.com/en/kb332 (update servers)" },
  { pattern: "kaspersky.com", vendor: "Kaspersky", kind: "security-agent", source: "https://support.kaspersky.com/ (update servers)" },
  { pattern: "kaspersky-labs.com", vendor: "Kaspersky", kind: "security-agent", source: "https://support.kaspersky.com/ (update servers)" },
  { pattern: "clamav.net", vendor: "ClamAV signature updates (freshclam)", kind: "security-agent", source: "https://docs.clamav.net/manual/Usage/SignatureManagement.html (database.clamav.net)" },
  { pattern: "qualys.com", vendor: "Qualys Cloud Agent", kind: "security-agent", source: "https://docs.qualys.com/en/ca/latest/ (qagpublic.*.qualys.com)" },
  { pattern: "rapid7.com", vendor: "Rapid7 Insight Agent", kind: "security-agent", source: "https://docs.rapid7.com/insight-agent/ (endpoint.ingress.rapid7.com)" },
  { pattern: "sysdigcloud.com", vendor: "Sysdig Secure", kind: "security-agent", source: "https://docs.sysdig.com/ (collector.sysdigcloud.com)" },
  { pattern: "lacework.net", vendor: "Lacework", kind: "security-agent", source: "https://docs.lacework.net/" },
  { pattern: "wazuh.com", vendor: "Wazuh Cloud", kind: "security-agent", source: "https://documentation.wazuh.com/" },
  // Cloud monitoring and management agents.
  { pattern: "datadoghq.com", vendor: "Datadog", kind: "cloud-monitoring", source: "https://docs.datadoghq.com/agent/configuration/network/" },
  { pattern: "datadoghq.eu", vendor: "Datadog (EU)", kind: "cloud-monitoring", source: "https://docs.datadoghq.com/agent/configuration/network/" },
  { pattern: "ddog-gov.com", vendor: "Datadog (US1-FED)", kind: "cloud-monitoring", source: "https://docs.datadoghq.com/agent/configuration/network/" },
  { pattern: "nr-data.net", vendor: "New Relic", kind: "cloud-monitoring", source: "https://docs.newrelic.com/docs/new-relic-solutions/get-started/networks/" },
  { pattern: "newrelic.com", vendor: "New Relic", kind: "cloud-monitoring", source: "https://docs.newrelic.com/docs/new-relic-solutions/get-started/networks/" },
  { pattern: "ssm.*.amazonaws.com", vendor: "AWS Systems Manager", kind: "cloud-monitoring", source: "https://docs.aws.amazon.com/systems-manager/latest/userguide/setup-create-vpc.html" },
  { pattern: "ssmmessages.*.amazonaws.com", vendor: "AWS Systems Manager", kind: "cloud-monitoring", source: "https://docs.aws.amazon.com/systems-manager/latest/userguide/setup-create-vpc.html" },
  { pattern: "ec2messages.*.amazonaws.com", vendor: "AWS Systems Manager", kind: "cloud-monitoring", source: "https://docs.aws.amazon.com/systems-manager/latest/userguide/setup-create-vpc.html" },
  { pattern: "monitoring.*.amazonaws.com", vendor: "Amazon CloudWatch", kind: "cloud-monitoring", source: "https://docs.aws.amazon.com/general/latest/gr/cw_region.html" },
  { pattern: "logs.*.amazonaws.com", vendor: "Amazon CloudWatch Logs", kind: "cloud-monitoring", source: "https://docs.aws.amazon.com/general/latest/gr/cwl_region.html" },
  { pattern: "guardduty-data.*.amazonaws.com", vendor: "Amazon GuardDuty runtime monitoring", kind: "security-agent", source: "https://docs.aws.amazon.com/guardduty/latest/ug/runtime-monitoring.html" },
  { pattern: "opinsights.azure.com", vendor: "Azure Monitor (Log Analytics agent)", kind: "cloud-monitoring", source: "https://learn.microsoft.com/en-us/azure/azure-monitor/agents/azure-monitor-agent-network-configuration" },
  { pattern: "monitor.azure.com", vendor: "Azure Monitor Agent", kind: "cloud-monitoring", source: "https://learn.microsoft.com/en-us/azure/azure-monitor/agents/azure-monitor-agent-network-configuration" },
  { pattern: "monitoring.googleapis.com", vendor: "Google Cloud Monitoring (Ops Agent)", kind: "cloud-monitoring", source: "https://cloud.google.com/monitoring/agent/ops-agent" },
  { pattern: "logging.googleapis.com", vendor: "Google Cloud Logging (Ops Agent)", kind: "cloud-monitoring", source: "https://cloud.google.com/logging/docs/agent/ops-agent" },
  // OS and container package repositories (blocking them stops security updates).
  { pattern: "deb.debian.org", vendor: "Debian", kind: "package-repository", source: "https://wiki.debian.org/SourcesList" },
  { pattern: "security.debian.org", vendor: "Debian security", kind: "package-repository", source: "https://www.debian.org/security/" },
  { pattern: "archive.ubuntu.com", vendor: "Ubuntu", kind: "package-repository", source: "https://help.ubuntu.com/community/Repositories/Ubuntu" },
  { pattern: "security.ubuntu.com", vendor: "Ubuntu security", kind: "package-repository", source: "https://help.ubuntu.com/community/Repositories/Ubuntu" },
  { pattern: "ports.ubuntu.com", vendor: "Ubuntu ports", kind: "package-repository", source: "https://help.ubuntu.com/community/Repositories/Ubuntu" },
  { pattern: "esm.ubuntu.com", vendor: "Ubuntu Pro ESM", kind: "package-repository", source: "https://ubuntu.com/security/esm" },
  { pattern: "download.docker.com", vendor: "Docker packages", kind: "package-repository", source: "https://docs.docker.com/engine/install/ubuntu/" },
  { pattern: "mirrors.fedoraproject.org", vendor: "Fedora/EPEL mirror list", kind: "package-repository", source: "https://docs.fedoraproject.org/en-US/infra/" },
  { pattern: "dl.fedoraproject.org", vendor: "Fedora/EPEL", kind: "package-repository", source: "https://docs.fedoraproject.org/en-US/epel/" },
  { pattern: "mirror.centos.org", vendor: "CentOS", kind: "package-repository", source: "https://www.centos.org/" },
  { pattern: "mirrors.rockylinux.org", vendor: "Rocky Linux", kind: "package-repository", source: "https://docs.rockylinux.org/" },
  { pattern: "mirrors.almalinux.org", vendor: "AlmaLinux", kind: "package-repository", source: "https://wiki.almalinux.org/" },
  { pattern: "cdn.redhat.com", vendor: "Red Hat CDN", kind: "package-repository", source: "https://access.redhat.com/articles/1525183" },
  { pattern: "yum.oracle.com", vendor: "Oracle Linux", kind: "package-repository", source: "https://yum.oracle.com/" },
  { pattern: "dl-cdn.alpinelinux.org", vendor: "Alpine Linux", kind: "package-repository", source: "https://wiki.alpinelinux.org/wiki/Repositories" },
  { pattern: "packages.microsoft.com", vendor: "Microsoft Linux packages", kind: "package-repository", source: "https://learn.microsoft.com/en-us/linux/packages" },
];

/**
 * Browser-side (RUM) beacons of monitoring vendors: ad and tracker block lists (StevenBlack hosts, EasyPrivacy) sink
 * these on desktops, which says nothing about a server agent.
 */
export const BROWSER_TRACKER_NAMES: readonly string[] = [
  "js-agent.newrelic.com",
  "bam.nr-data.net",
  "bam-cell.nr-data.net",
  "rum-http-intake.logs.datadoghq.com",
  "rum.browser-intake-datadoghq.com",
];

/** Whether a hostname is the pattern or one of its subdomains ("*" = one label). */
export function matchesDomainPattern(hostname: string, pattern: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, "").split(".");
  const pat = pattern.toLowerCase().split(".");
  if (name.length < pat.length) return false;
  const tail = name.slice(name.length - pat.length);
  return pat.every((label, i) => label === "*" || label === tail[i]);
}

/** The intel entry a hostname falls under, if any. */
export function securityDomain(hostname: string): SecurityDomain | undefined {
  if (BROWSER_TRACKER_NAMES.includes(hostname.toLowerCase())) return undefined;
  return SECURITY_DOMAINS.find((d) => matchesDomainPattern(hostname, d.pattern));
}
