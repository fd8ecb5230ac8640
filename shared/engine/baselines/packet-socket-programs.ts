// Programs that legitimately hold AF_PACKET sockets (raw layer-2 access: DHCP clients/servers, capture tools, VRRP,
// LLDP, IDS sensors, CNI agents, PTP). Used by packet-socket-backdoor: a process is explained only when its executable
// has one of these names *and* sits in one of the listed directories (BPFDoor borrows names, not paths).

export interface PacketSocketProgram {
  id: string;
  /** Executable file names (processes.path basename). */
  names: readonly string[];
  /** Directories the package installs them into (paths inside a container count: cilium-agent runs from /usr/bin). */
  directories: readonly string[];
  source: string;
}

const SYSTEM = ["/sbin", "/usr/sbin", "/bin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin", "/usr/lib/systemd", "/lib/systemd", "/usr/libexec"];
/** Where distribution packages install programs (not /usr/local): for tools added since, a copy there is no package's. */
const PACKAGED = ["/sbin", "/usr/sbin", "/bin", "/usr/bin"];

export const PACKET_SOCKET_PROGRAMS: readonly PacketSocketProgram[] = [
  { id: "packet-socket-programs:dhclient", names: ["dhclient"], directories: SYSTEM, source: "https://kb.isc.org/docs/isc-dhcp-44-manual-pages-dhclient (Linux Packet Filter interface)" },
  { id: "packet-socket-programs:dhcpd", names: ["dhcpd"], directories: SYSTEM, source: "https://kb.isc.org/docs/isc-dhcp-44-manual-pages-dhcpd (LPF on Linux)" },
  { id: "packet-socket-programs:kea", names: ["kea-dhcp4"], directories: SYSTEM, source: "https://kea.readthedocs.io/en/latest/arm/dhcp4-srv.html (dhcp-socket-type raw)" },
  { id: "packet-socket-programs:dnsmasq", names: ["dnsmasq"], directories: SYSTEM, source: "https://thekelleys.org.uk/dnsmasq/docs/dnsmasq-man.html (DHCP server: ARP cache entries and raw replies through a packet socket)" },
  { id: "packet-socket-programs:strongswan", names: ["charon", "charon-systemd"], directories: [...SYSTEM, "/usr/lib/ipsec", "/usr/libexec/ipsec", "/usr/libexec/strongswan"], source: "https://docs.strongswan.org/docs/latest/plugins/farp.html and plugins/dhcp.html (the farp and dhcp plugins answer ARP and send DHCP through packet sockets)" },
  { id: "packet-socket-programs:dhcpcd", names: ["dhcpcd"], directories: SYSTEM, source: "https://man.archlinux.org/man/dhcpcd.8" },
  { id: "packet-socket-programs:udhcpc", names: ["udhcpc", "busybox"], directories: SYSTEM, source: "https://busybox.net/downloads/BusyBox.html#udhcpc" },
  { id: "packet-socket-programs:systemd-networkd", names: ["systemd-networkd"], directories: SYSTEM, source: "https://www.freedesktop.org/software/systemd/man/latest/systemd-networkd.service.html (built-in DHCP client/server)" },
  { id: "packet-socket-programs:networkmanager", names: ["NetworkManager"], directories: SYSTEM, source: "https://networkmanager.dev/docs/api/latest/NetworkManager.conf.html (internal DHCP client)" },
  { id: "packet-socket-programs:wpa_supplicant", names: ["wpa_supplicant", "hostapd"], directories: SYSTEM, source: "https://w1.fi/wpa_supplicant/ (EAPOL over l2_packet)" },
  { id: "packet-socket-programs:capture", names: ["tcpdump", "dumpcap", "tshark", "wireshark", "tcpflow", "ngrep", "netsniff-ng"], directories: SYSTEM, source: "https://www.tcpdump.org/manpages/pcap.3pcap.html (libpcap uses PF_PACKET on Linux)" },
  { id: "packet-socket-programs:stenographer", names: ["stenotype"], directories: PACKAGED, source: "https://github.com/google/stenographer (stenotype writes every packet from an AF_PACKET TPACKET_V3 ring)" },
  // Arkime's capture by its install directory only: "capture" is a name anything may take.
  { id: "packet-socket-programs:arkime", names: ["capture"], directories: ["/opt/arkime/bin", "/data/moloch/bin"], source: "https://arkime.com/settings (Arkime's capture, /opt/arkime/bin/capture, reads with tpacketv3 or libpcap)" },
  { id: "packet-socket-programs:replay", names: ["tcpreplay", "tcpreplay-edit", "tcpliveplay"], directories: PACKAGED, source: "https://tcpreplay.appneta.com/wiki/tcpreplay-man.html (sends captured frames back out of an interface through PF_PACKET)" },
  { id: "packet-socket-programs:flow-monitors", names: ["fastnetmon", "pmacctd", "softflowd", "ntopng"], directories: PACKAGED, source: "https://fastnetmon.com/docs/ (FastNetMon's AF_PACKET mirror capture: mirror_afpacket), http://www.pmacct.net/ (pmacctd over libpcap), https://github.com/irino/softflowd (libpcap), https://www.ntop.org/guides/ntopng/ (libpcap/PF_RING): traffic and DDoS monitors on routers and edges" },
  { id: "packet-socket-programs:port-scan-detectors", names: ["scanlogd", "portsentry"], directories: PACKAGED, source: "https://www.openwall.com/scanlogd/ (in_linux.c: a raw TCP socket), Debian portsentry 1.2 (stealth modes open raw TCP and UDP sockets): port-scan detectors read raw TCP/UDP for their lifetime" },
  { id: "packet-socket-programs:path-probes", names: ["mtr-packet", "traceroute", "tcptraceroute", "traceroute6"], directories: PACKAGED, source: "https://github.com/traviscross/mtr (packet/probe_unix.c: mtr-packet opens raw UDP sockets at start), traceroute(8) -T (raw TCP probes): network path diagnostics, from their packages" },
  { id: "packet-socket-programs:datadog-system-probe", names: ["system-probe"], directories: ["/opt/datadog-agent/embedded/bin"], source: "https://github.com/DataDog/datadog-agent (pkg/networkpath/traceroute/tcp: Network Path's TCP traceroute listens on ip4:tcp); https://docs.datadoghq.com/network_monitoring/dns/ (system-probe packet capture)" },
  { id: "packet-socket-programs:scanners", names: ["nmap", "nping", "masscan", "zmap", "hping3", "arp-scan"], directories: PACKAGED, source: "https://nmap.org/book/man-briefoptions.html (SYN scans and OS detection send and read raw IP packets), https://github.com/robertdavidgraham/masscan, https://zmap.io/, https://linux.die.net/man/8/hping3: network scanners run by administrators (offensive-tool-present judges whether they belong)" },
  { id: "packet-socket-programs:heplify", names: ["heplify"], directories: [...SYSTEM, "/opt/heplify"], source: "https://github.com/sipcapture/heplify (Homer's capture agent: captures SIP and RTCP from the wire with libpcap/AF_PACKET)" },
  { id: "packet-socket-programs:keepalived", names: ["keepalived"], directories: SYSTEM, source: "https://keepalived.readthedocs.io/ (VRRP gratuitous ARP / NA)" },
  { id: "packet-socket-programs:lldp", names: ["lldpd", "lldpad", "ladvd"], directories: SYSTEM, source: "https://lldpd.github.io/ and https://github.com/sspans/ladvd" },
  { id: "packet-socket-programs:arpwatch", names: ["arpwatch", "arping", "arp-scan"], directories: SYSTEM, source: "https://ee.lbl.gov/ (arpwatch, libpcap)" },
  { id: "packet-socket-programs:ids", names: ["suricata", "snort", "zeek", "bro", "packetbeat"], directories: [...SYSTEM, "/opt/zeek/bin", "/usr/local/zeek/bin", "/opt/suricata/bin", "/usr/share/packetbeat/bin"], source: "https://docs.suricata.io/en/latest/capture-hardware/af-packet.html and https://docs.zeek.org/en/master/frameworks/packet-analysis.html" },
  { id: "packet-socket-programs:cilium", names: ["cilium-agent"], directories: SYSTEM, source: "https://docs.cilium.io/ (agent runs from /usr/bin in the cilium image)" },
  { id: "packet-socket-programs:l2-announcers", names: ["speaker", "kube-vip"], directories: ["/", "/usr/bin", "/usr/local/bin"], source: "https://metallb.universe.tf/concepts/layer2/ and https://kube-vip.io/docs/modes/arp/ (ARP/NDP replies from a raw socket)" },
  { id: "packet-socket-programs:ptp", names: ["ptp4l", "phc2sys"], directories: SYSTEM, source: "https://linuxptp.nwtime.org/documentation/ptp4l/ (raw Ethernet transport -2)" },
  { id: "packet-socket-programs:avahi-autoipd", names: ["avahi-autoipd"], directories: SYSTEM, source: "https://avahi.org/ (IPv4LL ARP probing)" },
  // openSUSE's and SLES's network manager runs a DHCP supplicant per interface from its own directory.
  { id: "packet-socket-programs:wicked", names: ["wickedd-dhcp4", "wickedd-dhcp6", "wickedd-auto4"], directories: ["/usr/lib/wicked/bin", "/usr/libexec/wicked/bin", "/usr/lib64/wicked/bin"], source: "https://github.com/openSUSE/wicked (wickedd-dhcp4 sends and receives DHCP through a packet socket; the supplicants live in /usr/lib/wicked/bin or /usr/libexec/wicked/bin)" },
  { id: "packet-socket-programs:openvswitch", names: ["ovs-vswitchd"], directories: PACKAGED, source: "https://docs.openvswitch.org/en/latest/ (netdev-linux: ovs-vswitchd sends and receives on system and internal ports through AF_PACKET sockets, and the userspace datapath reads every port so)" },
  { id: "packet-socket-programs:pppoe", names: ["pppd", "pppoe", "pppoe-server"], directories: SYSTEM, source: "https://ppp.samba.org/ (rp-pppoe plugin)" },
  { id: "packet-socket-programs:nmap", names: ["nmap", "nping"], directories: [...SYSTEM, "/usr/lib/nmap"], source: "https://nmap.org/book/man-bypass-firewalls-ids.html (--send-eth: raw Ethernet frames through a packet socket; Kali installs nmap at /usr/lib/nmap/nmap): a scan, not a backdoor listening. masscan and zmap are not here: botnets install them from the package manager to spread" },
];

function dirname(path: string): string {
  const i = path.lastIndexOf("/");
  return i > 0 ? path.slice(0, i) : "/";
}

/** The baseline entry for an executable path, if its name and directory both match. */
export function packetSocketProgram(path: string): PacketSocketProgram | undefined {
  const file = path.slice(path.lastIndexOf("/") + 1);
  const dir = dirname(path);
  return PACKET_SOCKET_PROGRAMS.find((p) => p.names.includes(file) && p.directories.includes(dir));
}
