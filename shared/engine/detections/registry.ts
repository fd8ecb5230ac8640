// The detection catalog. Adding a detection: one module in this folder and one line here.
import { compareText } from "../order.js";
import { ciRunnerEgress } from "./ci-runner-egress.js";
import { cryptominer } from "./cryptominer.js";
import { deletedBinaryRunning } from "./deleted-binary.js";
import type { Detection } from "./detection.js";
import { downloadExecute } from "./download-execute.js";
import { execFromTmp } from "./exec-from-tmp.js";
import { historyTampering } from "./history-tampering.js";
import { hostsRedirection } from "./hosts-redirection.js";
import { iocMatch } from "./ioc-match.js";
import { knownBadHash } from "./known-bad-hash.js";
import { maliciousPackageRelease } from "./malicious-package-release.js";
import { offensiveToolPresent } from "./offensive-tool-present.js";
import { lateralAdminConnection } from "./lateral-admin-connection.js";
import { ldPreload } from "./ld-preload.js";
import { newInteractiveAccount } from "./new-interactive-account.js";
import { nonRootUid0 } from "./non-root-uid0.js";
import { privilegedContainer } from "./privileged-container.js";
import { processMasquerading } from "./process-masquerading.js";
import { remoteRootLogin } from "./remote-root-login.js";
import { reverseShell } from "./reverse-shell.js";
import { sshAuthorizedKey } from "./ssh-authorized-key.js";
import { sudoersNopasswdAll } from "./sudoers-nopasswd.js";
import { suspiciousCron } from "./suspicious-cron.js";
import { suspiciousSystemdUnit } from "./suspicious-systemd-unit.js";
import { unexpectedKernelModule } from "./unexpected-kernel-module.js";
import { unexpectedListener } from "./unexpected-listener.js";
import { unexpectedSuid } from "./unexpected-suid.js";
import { vulnerablePackage } from "./vulnerable-package.js";
import { cloudCredentialAccess } from "./cloud-credential-access.js";
import { containerHostMount } from "./container-host-mount.js";
import { credentialExfiltration } from "./credential-exfiltration.js";
import { stagedDataExfiltration } from "./staged-data-exfiltration.js";
import { pamBackdoor } from "./pam-backdoor.js";
import { sshdLibraryBackdoor } from "./sshd-library-backdoor.js";
import { installScriptPayload } from "./install-script-payload.js";
import { outboundScan } from "./outbound-scan.js";
import { replacedSystemBinary } from "./replaced-system-binary.js";
import { credentialFileAccess } from "./credential-file-access.js";
import { defenseImpairment } from "./defense-impairment.js";
import { dockerApiExposed } from "./docker-api-exposed.js";
import { dockerSocketMount } from "./docker-socket-mount.js";
import { fakeKernelThread } from "./fake-kernel-thread.js";
import { hiddenSystemPathExec } from "./hidden-system-path-exec.js";
import { ingressToolTransfer } from "./ingress-tool-transfer.js";
import { ldSoPreload } from "./ld-so-preload.js";
import { logWiping } from "./log-wiping.js";
import { packetSocketBackdoor } from "./packet-socket-backdoor.js";
import { publicInteractiveLogin } from "./public-interactive-login.js";
import { securityToolSinkhole } from "./security-tool-sinkhole.js";
import { serviceSpawnedShell } from "./service-spawned-shell.js";
import { webshellShellSpawn } from "./webshell-shell-spawn.js";

export const DETECTIONS = [
  unexpectedListener,
  deletedBinaryRunning,
  execFromTmp,
  reverseShell,
  ldPreload,
  sshAuthorizedKey,
  suspiciousCron,
  suspiciousSystemdUnit,
  unexpectedSuid,
  unexpectedKernelModule,
  nonRootUid0,
  newInteractiveAccount,
  remoteRootLogin,
  cryptominer,
  historyTampering,
  downloadExecute,
  knownBadHash,
  maliciousPackageRelease,
  offensiveToolPresent,
  privilegedContainer,
  sudoersNopasswdAll,
  hostsRedirection,
  processMasquerading,
  ciRunnerEgress,
  vulnerablePackage,
  lateralAdminConnection,
  iocMatch,
  cloudCredentialAccess,
  containerHostMount,
  credentialExfiltration,
  stagedDataExfiltration,
  pamBackdoor,
  sshdLibraryBackdoor,
  installScriptPayload,
  outboundScan,
  replacedSystemBinary,
  credentialFileAccess,
  defenseImpairment,
  dockerApiExposed,
  dockerSocketMount,
  fakeKernelThread,
  hiddenSystemPathExec,
  ingressToolTransfer,
  ldSoPreload,
  logWiping,
  packetSocketBackdoor,
  publicInteractiveLogin,
  securityToolSinkhole,
  serviceSpawnedShell,
  webshellShellSpawn,
] as const;

export type DetectionId = (typeof DETECTIONS)[number]["id"];

const BY_ID: ReadonlyMap<string, Detection> = new Map(DETECTIONS.map((d) => [d.id, d as Detection]));

export function getDetection(id: string): Detection | undefined {
  return BY_ID.get(id);
}

export function isDetectionId(id: string): id is DetectionId {
  return BY_ID.has(id);
}

/** All detections, sorted by id (the order reports and calibration use). */
export function allDetections(): Detection[] {
  return [...BY_ID.values()].sort((a, b) => compareText(a.id, b.id));
}
