// Security, audit and logging agents intruders stop, kill or uninstall before acting (Kinsing, TeamTNT, WatchDog,
// Rocke scripts), the kernel knobs their scripts turn off, and the files they unlock with chattr.
import { InOrder } from "../in-order.js";

export interface AgentIntel {
  /** What it is, for a summary. */
  label: string;
  /** Service / process name fragments (matched as words in systemctl/service/pkill/kill command lines). */
  names: readonly string[];
  source: string;
}

export const SECURITY_AGENTS: readonly AgentIntel[] = [
  { label: "CrowdStrike Falcon", names: ["falcon-sensor", "falcond", "falcon"], source: "Sigma proc_creation_lnx_security_tools_disabling.yml" },
  { label: "Carbon Black", names: ["cbdaemon", "cbagentd", "cb-psc-sensor"], source: "Sigma proc_creation_lnx_security_tools_disabling.yml" },
  { label: "Linux audit daemon", names: ["auditd"], source: "https://attack.mitre.org/techniques/T1562/012/" },
  { label: "osquery", names: ["osqueryd", "osquery"], source: "https://osquery.readthedocs.io/en/stable/installation/install-linux/" },
  { label: "Wazuh/OSSEC agent", names: ["wazuh-agent", "wazuh-agentd", "ossec", "ossec-agentd"], source: "https://documentation.wazuh.com/current/installation-guide/wazuh-agent/" },
  { label: "SentinelOne", names: ["sentinelone", "s1-agent", "sentinelctl"], source: "https://attack.mitre.org/techniques/T1562/001/" },
  { label: "Microsoft Defender for Endpoint", names: ["mdatp", "wdavdaemon"], source: "https://learn.microsoft.com/en-us/defender-endpoint/linux-resources" },
  { label: "Elastic Agent/Endpoint", names: ["elastic-agent", "elastic-endpoint", "auditbeat"], source: "https://www.elastic.co/guide/en/fleet/current/elastic-agent-installation.html" },
  { label: "Falco", names: ["falco"], source: "https://falco.org/docs/" },
  { label: "Sysmon for Linux", names: ["sysmon"], source: "https://github.com/microsoft/SysmonForLinux" },
  { label: "Trend Micro Deep Security", names: ["ds_agent"], source: "https://help.deepsecurity.trendmicro.com/" },
  { label: "Qualys agent", names: ["qualys-cloud-agent"], source: "https://attack.mitre.org/techniques/T1562/001/" },
  { label: "Alibaba Cloud Security (Aegis/AliYunDun)", names: ["aegis", "aliyundun", "aliyundunupdate", "aliyun-service", "aliyun", "cloudmonitor", "argusagent"], source: "https://unit42.paloaltonetworks.com/malware-used-by-rocke-group-evolves-to-evade-detection-by-cloud-security-products/" },
  { label: "Tencent Cloud agents (YunJing/Barad/Stargate)", names: ["ydservice", "ydlive", "yunjing", "barad_agent", "sgagent", "stargate", "qcloud"], source: "https://unit42.paloaltonetworks.com/malware-used-by-rocke-group-evolves-to-evade-detection-by-cloud-security-products/" },
  { label: "Baidu Cloud agents", names: ["bcm-agent", "bcm-si"], source: "https://www.trendmicro.com/en_us/research/20/k/analysis-of-kinsing-malware-s-use-of-rootkit.html" },
  { label: "system logging", names: ["rsyslog", "syslog-ng", "systemd-journald", "syslog"], source: "Sigma lnx_syslog_security_tools_disabling_syslog.yml" },
];

/** Uninstall scripts of cloud security agents that Kinsing/Rocke/TeamTNT scripts call. */
export const AGENT_UNINSTALLERS: ReadonlyArray<Pick<RegExp, "test">> = [
  /\/usr\/local\/aegis\/uninstall\.sh|\/usr\/local\/aegis\/aegis_\w+\/aegis_uninstall/i,
  /\/usr\/local\/qcloud\/(?:stargate\/admin\/uninstall\.sh|YunJing\/uninst\.sh|monitor\/barad\/admin\/uninstall\.sh)/i,
  // rm -r, then an agent's directory later in its command (parts in order: as one pattern, quadratic in a line).
  new InOrder(/[\n;]/, [/\brm\s+-(?=[a-z]*r)[a-z]*\s+/i, /(?:\/usr\/local\/aegis|\/usr\/local\/qcloud|\/opt\/CrowdStrike|\/opt\/carbonblack|\/var\/ossec|\/opt\/sentinelone)\b/i]),
];
export const AGENT_UNINSTALLER_SOURCE = "https://www.trendmicro.com/en_us/research/20/k/analysis-of-kinsing-malware-s-use-of-rootkit.html; https://unit42.paloaltonetworks.com/malware-used-by-rocke-group-evolves-to-evade-detection-by-cloud-security-products/";

export interface KernelKnob {
  /** /proc/sys path relative to /proc/sys/kernel or the sysctl name. */
  pattern: RegExp;
  label: string;
  weight: "strong" | "weak";
  source: string;
}

/** Kernel settings intruder scripts switch off (echo 0 > /proc/sys/kernel/... or sysctl -w ...=0). */
export const MONITORING_KNOBS: readonly KernelKnob[] = [
  { pattern: /kernel[./]nmi_watchdog/, label: "NMI watchdog", weight: "strong", source: "Kinsing/TeamTNT miner scripts (echo 0 > /proc/sys/kernel/nmi_watchdog), https://www.trendmicro.com/en_us/research/20/k/analysis-of-kinsing-malware-s-use-of-rootkit.html" },
  { pattern: /kernel[./]randomize_va_space/, label: "ASLR", weight: "strong", source: "Sigma lnx_auditd_disable_aslr_protection.yml" },
  { pattern: /kernel[./]yama[./]ptrace_scope/, label: "Yama ptrace restriction", weight: "weak", source: "https://www.kernel.org/doc/html/latest/admin-guide/LSM/Yama.html (needed by mimipenguin/3snake memory scraping)" },
];

/** Files whose immutable bit intruders remove (to write) or set (to lock their persistence in). */
export const CHATTR_TARGETS = /\/etc\/ld\.so\.preload|authorized_keys2?\b|\/etc\/(?:passwd|shadow|sudoers)\b|\/etc\/cron|\/var\/spool\/cron|\/etc\/rc\.local|\/etc\/profile|\/etc\/systemd\/system|\/usr\/bin\/|\/bin\/|\/sbin\/|\/tmp\/|\/dev\/shm\//;
export const CHATTR_SOURCE = "Sigma proc_creation_lnx_chattr_immutable_removal.yml; https://www.cadosecurity.com/blog/teamtnt-reemerged-with-new-aggressive-cloud-campaign (chattr -ia authorized_keys, ld.so.preload)";

/** The agent an impairing command names, if any (word match on its names). */
export function agentNamed(text: string): AgentIntel | undefined {
  const lowerText = text.toLowerCase();
  return SECURITY_AGENTS.find((a) => a.names.some((n) => new RegExp(`(?:^|[\\s/'"=])${n.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&")}(?:\\.service)?(?=$|[\\s'";|&*])`).test(lowerText)));
}
