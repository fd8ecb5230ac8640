// Interactive shells on system accounts no package gives one, and human-range accounts that are off the host's
// known users, borrow a system account's name, or live in a temp or hidden home.
import { cloudDefaultUser, knownAutomation, systemAccount, tagBaseline, type Explanation } from "../baselines/index.js";
import { num, rowsOf, str, tagList, withoutTrailingSlashes } from "../rows.js";
import { defineDetection, type DetectionHit } from "./detection.js";
import { inTmpDir, isInteractiveShell } from "./patterns.js";
import { keyParts, RESTRICTED_KEY_BASELINE, restrictedForcedCommand } from "./ssh-authorized-key.js";
import type { HostData, Row } from "../types.js";

function oddHome(directory: string): string | undefined {
  if (directory === "") return undefined;
  if (inTmpDir(`${withoutTrailingSlashes(directory)}/`)) return `its home is in a temp directory (${directory})`;
  if (directory === "/" || directory === "/root" || directory.startsWith("/root/")) return `its home is ${directory}`;
  if (/\/\.[^/]+/.test(directory)) return `its home is a hidden directory (${directory})`;
  return undefined;
}

/** The account's authorized keys (rows with a key). */
function keysOf(host: HostData, uid: string): Row[] {
  return rowsOf(host, "authorized_keys").filter((k) => str(k, "uid") === uid && str(k, "key") !== "");
}

/**
 * The forced command every authorized key of the account is restricted to (ssh-authorized-key's rule: no pty, no
 * forwarding, a plain program), when it has keys and all are: borg serve, rrsync, rsnapshot's wrapper. sshd runs a
 * forced command with the user's shell (`shell -c command`), so such an account needs one. Source: sshd(8), LOGIN
 * PROCESS and AUTHORIZED_KEYS FILE FORMAT (command=).
 */
function onlyForcedCommands(host: HostData, uid: string): string | undefined {
  const keys = keysOf(host, uid);
  if (keys.length === 0) return undefined;
  const commands = keys.map((k) => restrictedForcedCommand(keyParts(k).options));
  return commands.every((c) => c !== null) ? (commands[0] as string) : undefined;
}

/**
 * A configuration-management tool's deploy account: it has keys and every one carries the tool's comment (Ansible,
 * Salt SSH, Rundeck...). Ansible runs each module through the remote user's login shell (`/bin/sh -c`), so the account
 * needs one. Source: the CONFIG_MANAGEMENT_KEY baseline, and Ansible's "Connection methods and details".
 */
function configManagementAccount(host: HostData, uid: string): Explanation | undefined {
  const keys = keysOf(host, uid);
  const explained = keys.map((k) => knownAutomation({ kind: "ssh-key-comment", comment: keyParts(k).comment }));
  return keys.length > 0 && explained.every((e) => e !== undefined) ? explained[0] : undefined;
}

/**
 * The system service an account runs as: a process of its uid in a unit of system.slice named for the account
 * (`zeek.service` for zeek, `airflow-webserver.service` for airflow), not a login session or a job. An application's
 * own account, given a shell by its installer or its admin (Zeek's zeekctl runs commands on its workers over ssh). A
 * packaged account (www-data, mysql) never counts: a shell its package does not give it is tampering (PANIX's
 * `--backdoor-system-user`), whatever service it runs.
 */
function serviceRunAs(host: HostData, uid: string, name: string): string | undefined {
  if (systemAccount(name) !== undefined || name.length < 3) return undefined;
  for (const p of rowsOf(host, "processes")) {
    if (str(p, "uid") !== uid) continue;
    const unit = /^\/system\.slice\/([^/]+)\.service(?:\/|$)/.exec(str(p, "cgroup_path"))?.[1];
    if (unit !== undefined && unit.toLowerCase().includes(name.toLowerCase())) return `${unit}.service`;
  }
  return undefined;
}

export const newInteractiveAccount = defineDetection({
  id: "new-interactive-account",
  title: "New or unexpected interactive account",
  reads: { users: ["uid", "username", "shell", "directory"], authorized_keys: ["uid", "key", "options", "comment"], processes: ["uid", "name", "cgroup_path"] },
  severity: "medium",
  attack: ["T1136.001"],
  maturity: "experimental",
  category: "persistence",
  false_positives: "Service accounts given a shell by hand; people not yet listed in the known_users tag.",
  advice: {
    triage: ["Confirm with the owners of {hosts} who created the account and why it has a login shell."],
    containment: ["Set the shell to /usr/sbin/nologin and lock the account on {hosts} until explained."],
    investigation: ["Check authorized keys, sudo rights and login history of the account."],
    remediation: ["Manage accounts centrally and keep the known_users tag current."],
  },
  baseline_tag: "known_users",
  evaluate(host) {
    const known = new Set(tagList(host.tags, "known_users"));
    const hits: DetectionHit[] = [];
    for (const row of rowsOf(host, "users")) {
      const uid = num(row, "uid");
      const name = str(row, "username");
      const shell = str(row, "shell");
      if (uid === undefined || uid === 0 || uid >= 65534 || name === "" || !isInteractiveShell(shell)) continue;
      const evidence = [{ table: "users", row }];
      const entity = `user:${name}`;
      const keep = (why: string, baseline: string): void => {
        hits.push({ summary: `${name} (uid ${uid}) has the shell ${shell}: ${why}.`, evidence, entity, kept_by: baseline });
      };
      const home = oddHome(str(row, "directory"));
      if (uid < 1000) {
        const packaged = home === undefined ? systemAccount(name, shell) : undefined;
        const forced = home === undefined && !packaged ? onlyForcedCommands(host, String(uid)) : undefined;
        const deploy = home === undefined && !packaged && forced === undefined ? configManagementAccount(host, String(uid)) : undefined;
        const service = home === undefined && !packaged && forced === undefined && !deploy && !known.has(name) ? serviceRunAs(host, String(uid), name) : undefined;
        if (packaged) keep(`the package that creates it gives it that shell (${packaged.source})`, packaged.baseline);
        else if (home === undefined && known.has(name)) keep("listed in the host's known_users tag", tagBaseline("known_users"));
        else if (forced !== undefined) keep(`every key it accepts can only run \`${forced.slice(0, 60)}\`; sshd runs a forced command through the account's shell, so the shell is needed (a backup or sync account)`, RESTRICTED_KEY_BASELINE);
        else if (deploy) keep(`every key it accepts is a configuration-management tool's (${deploy.source}), which runs its modules through the account's shell`, deploy.baseline);
        else if (service !== undefined) {
          hits.push({ summary: `System account ${name} (uid ${uid}) has the interactive shell ${shell}, which no package gives it; it runs the service ${service}, an application's own account.`, evidence, severity: "info", entity });
        } else {
          hits.push({
            summary: `System account ${name} (uid ${uid}) has the interactive shell ${shell}, which no package gives it${home ? `; ${home}` : ""}.`,
            evidence,
            severity: home ? "high" : undefined,
            entity,
            // The same account with the same shell on most hosts is how the fleet is built (a monitoring or automation
            // user given a shell by configuration management); one in a temp or hidden home never is.
            ...(home ? {} : { fleet_key: `${name}\n${shell}` }),
          });
        }
        continue;
      }
      // A system account's name (www-data, sshd) with a human uid and a shell its package never gives it.
      const borrowed = systemAccount(name, shell) === undefined ? systemAccount(name) : undefined;
      const reasons = [
        borrowed ? `it borrows the name of a system account (${borrowed.baseline}) with a human uid and a shell` : "",
        home ?? "",
      ].filter((s) => s !== "");
      if (reasons.length === 0) {
        // Without a known_users inventory a human-range account is not judged.
        if (known.size === 0) continue;
        const cloud = cloudDefaultUser(name);
        if (known.has(name)) keep("listed in the host's known_users tag", tagBaseline("known_users"));
        else if (cloud) keep(`the cloud image's default user (${cloud.source})`, cloud.baseline);
        else hits.push({ summary: `Interactive account ${name} (uid ${uid}, shell ${shell}) is not in the host's known users.`, evidence, entity });
        continue;
      }
      // check_by_ssh's remote account (nagios, made by hand with a human uid): every key it accepts runs one program.
      const forced = home === undefined ? onlyForcedCommands(host, String(uid)) : undefined;
      if (forced !== undefined) {
        keep(`every key it accepts can only run \`${forced.slice(0, 60)}\`; sshd runs a forced command through the account's shell, so the shell is needed (a monitoring or sync account)`, RESTRICTED_KEY_BASELINE);
        continue;
      }
      // A source-built monitoring or service user (nagios, zabbix) takes a human uid; the same on most hosts is the
      // fleet's build, not a name borrowed to hide in.
      hits.push({ summary: `Interactive account ${name} (uid ${uid}, shell ${shell}): ${reasons.join("; ")}.`, evidence, severity: "high", entity, ...(home ? {} : { fleet_key: `${name}\n${shell}\nborrowed` }) });
    }
    return hits;
  },
});
