// Containers running privileged (host takeover from inside). Socket and host-path mounts are the
// docker-socket-mount and container-host-mount detections' (docker_container_mounts).
import { privilegedImage, tagBaseline } from "../baselines/index.js";
import { flag, inContainer, processLabel, rowsOf, str, tagList } from "../rows.js";
import type { Row } from "../types.js";
import { defineDetection, type DetectionHit } from "./detection.js";

/** nsenter into pid 1's namespaces (`-t 1`, `--target 1`, `--target=1`, `-m/proc/1/ns/mnt`): the host's own. */
const ENTERS_HOST = /(?:^|\s)(?:-t\s*1|--target(?:=|\s+)1|-[muinpUC]\s*\/proc\/1\/ns\/\w+|--(?:mount|pid|net|uts|ipc)=\/proc\/1\/ns\/\w+)(?=\s|$)/;
const SHELL_WORD = /^(?:\S*\/)?(?:ba|da|z|k|c|tc|fi)?sh$/;

/**
 * cgroup v1's escape in one command line: a cgroup hierarchy's release_agent set, with notify_on_release or the cgroup
 * mount beside it (`mount -t cgroup -o rdma cgroup /tmp/cgrp; echo 1 > .../notify_on_release; echo ... > .../release_agent`).
 */
const RELEASE_AGENT = { test: (cmdline: string): boolean => cmdline.includes("/release_agent") && (cmdline.includes("notify_on_release") || /\bmount\s+-t\s+cgroup\s/.test(cmdline)) };

/** nsenter's options that take their value as the next word. */
const NSENTER_VALUED: ReadonlySet<string> = new Set(["-t", "--target", "-S", "--setuid", "-G", "--setgid", "-w", "--wd", "-r", "--root"]);

/** The program nsenter runs (after `--`, or its first non-option word); undefined: none, so the default shell. */
function nsenterProgram(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === "--") return args[i + 1];
    if (a.startsWith("-")) {
      if (NSENTER_VALUED.has(a)) i++;
      continue;
    }
    return a;
  }
  return undefined;
}

/**
 * A shell run in the host's namespaces by nsenter from inside a container (its root a container's filesystem, or a
 * container's cgroup): the escape a privileged, host-PID pod allows (`nsenter --target 1 --mount --uts --ipc --net
 * --pid -- bash`; ATT&CK T1611; BishopFox's "Bad Pods"). No command after it is a shell too. kured and node tools
 * that nsenter to run one program (`systemctl reboot`) are not.
 */
function nsenterEscape(proc: Row): string | undefined {
  const cmdline = str(proc, "cmdline");
  const at = cmdline.search(/(?:^|[\s/])nsenter\s/);
  if (at < 0 || !ENTERS_HOST.test(cmdline.slice(at))) return undefined;
  const program = nsenterProgram(cmdline.slice(at).trim().split(/\s+/).slice(1));
  if (program !== undefined && !SHELL_WORD.test(program)) return undefined;
  return inContainer(proc) ? `from inside a container (root ${str(proc, "root") || "?"})` : "";
}

/** Where a pod or container mounts the host's root filesystem to chroot into it (Bad Pods' `hostPath: /` at /host). */
const HOST_ROOT_MOUNT = /^\/(?:host|hostfs|host-root|host_root|hostroot|rootfs|node|node-root|mnt\/host|mnt\/hostfs)\/?$/;

/**
 * A shell chrooted into the host's root filesystem mounted in a container (`chroot /host bash`): Bad Pods' "everything
 * allowed" and "hostPath" escapes, and `kubectl debug node/...`'s documented next step. With no program, chroot runs
 * the default shell. chroot into a build's own tree is not this: the target must be where the host's root is mounted.
 */
function chrootEscape(proc: Row): boolean {
  // Words, not one expression: options with or without values (`--userspec 0:0`) before the new root.
  const words = str(proc, "cmdline").trim().split(/\s+/);
  const at = words.findIndex((w) => w === "chroot" || w.endsWith("/chroot"));
  if (at < 0) return false;
  let i = at + 1;
  while (i < words.length && (words[i] as string).startsWith("-")) i += CHROOT_VALUED.has(words[i] as string) ? 2 : 1;
  const newRoot = words[i];
  if (newRoot === undefined || !HOST_ROOT_MOUNT.test(newRoot)) return false;
  const program = words[i + 1];
  return (program === undefined || SHELL_WORD.test(program)) && inContainer(proc);
}

/** chroot's options that take their value as the next word. */
const CHROOT_VALUED: ReadonlySet<string> = new Set(["--userspec", "--groups"]);

export const privilegedContainer = defineDetection({
  id: "privileged-container",
  title: "Privileged container",
  reads: { docker_containers: ["id", "name", "image", "privileged", "state", "command"], processes: ["pid", "name", "path", "cmdline", "root", "cgroup_path"] },
  severity: "high",
  attack: ["T1611", "T1610"],
  maturity: "test",
  category: "privilege-escalation",
  false_positives: "Monitoring, runtime-security and CI docker-in-docker images run privileged by design (the documented ones are kept quiet).",
  advice: {
    triage: ["Identify who started the container on {hosts} and from which image and registry."],
    containment: ["Stop the container on {hosts} if its image or owner is unknown."],
    investigation: ["Check the container's processes and whether it wrote to the host filesystem."],
    remediation: ["Drop --privileged (grant only the capabilities needed); list sanctioned images in allowed_privileged_images."],
  },
  baseline_tag: "allowed_privileged_images",
  evaluate(host) {
    const allowed = tagList(host.tags, "allowed_privileged_images");
    const hits: DetectionHit[] = [];
    for (const row of rowsOf(host, "docker_containers")) {
      if (!flag(row, "privileged")) continue;
      const image = str(row, "image");
      const label = `Container ${str(row, "name").replace(/^\//, "") || str(row, "id").slice(0, 12)} (image ${image || "unknown"})`;
      const evidence = [{ table: "docker_containers", row }];
      const entity = `container:${str(row, "id") || str(row, "name")}`;
      if (allowed.some((a) => image === a || image.startsWith(`${a}:`) || image.startsWith(`${a}@`))) {
        hits.push({ summary: `${label} runs privileged; the image is in the host's allowed_privileged_images tag.`, evidence, entity, kept_by: tagBaseline("allowed_privileged_images") });
        continue;
      }
      const documented = privilegedImage(image, str(row, "name"), str(row, "command"));
      if (documented) {
        hits.push({ summary: `${label} is privileged, as its documentation requires (${documented.source}).`, evidence, entity, kept_by: documented.baseline });
        continue;
      }
      const exited = /^(?:exited|dead)$/i.test(str(row, "state"));
      hits.push({ summary: exited ? `${label} ran privileged (now ${str(row, "state").toLowerCase()}): it could reach the host's devices and kernel.` : `${label} runs privileged: it can reach the host's devices and kernel.`, evidence, entity });
    }
    // What a privileged container is for, to an intruder: a shell in the host's namespaces, or a cgroup release_agent
    // that the host's kernel runs as root. Seen in the processes, so on containerd and CRI-O nodes too, where
    // docker_containers has no rows.
    for (const proc of rowsOf(host, "processes")) {
      if (RELEASE_AGENT.test(str(proc, "cmdline"))) {
        hits.push({
          summary: `${processLabel(proc, str(proc, "pid"))} (pid ${str(proc, "pid")}) sets a cgroup release_agent: the host's kernel runs that program as root when the cgroup empties, the escape of CVE-2022-0492 and Felix Wilhelm's privileged-container proof of concept: ${str(proc, "cmdline").slice(0, 120)}.`,
          evidence: [{ table: "processes", row: proc }],
          entity: `pid:${str(proc, "pid")}`,
          severity: "high",
        });
        continue;
      }
      if (chrootEscape(proc)) {
        hits.push({
          summary: `${processLabel(proc, str(proc, "pid"))} (pid ${str(proc, "pid")}) runs a shell chrooted into the host's root filesystem mounted in a container: the host's files and programs as root: ${str(proc, "cmdline").slice(0, 120)}.`,
          evidence: [{ table: "processes", row: proc }],
          entity: `pid:${str(proc, "pid")}`,
          severity: "high",
        });
        continue;
      }
      const where = nsenterEscape(proc);
      if (where === undefined) continue;
      hits.push({
        summary: `${processLabel(proc, str(proc, "pid"))} (pid ${str(proc, "pid")}) runs a shell in the host's namespaces (pid 1's) with nsenter${where !== "" ? ` ${where}` : ""}: ${str(proc, "cmdline").slice(0, 120)}.`,
        evidence: [{ table: "processes", row: proc }],
        entity: `pid:${str(proc, "pid")}`,
        severity: "high",
      });
    }
    return hits;
  },
});
