// Names Linux gives its kernel threads (what ps shows in brackets). Real kernel threads have no executable and no
// argv: osquery reports path "" and cmdline "", parent 2 (kthreadd) or 0 (kthreadd itself). Used by fake-kernel-thread.
// Sources: kernel/kthread.c (kthreadd), kernel/workqueue.c (kworker/<cpu>:<id>[H], kworker/u<pool>:<id>, named
// workqueues such as kblockd, writeback), kernel/softirq.c (ksoftirqd/<cpu>), kernel/stop_machine.c (migration/<cpu>),
// kernel/rcu/ (rcu_sched, rcu_preempt, rcuc/, rcuop/), kernel/cpu.c (cpuhp/<cpu>), mm/vmscan.c (kswapd<node>),
// mm/compaction.c (kcompactd<node>), mm/khugepaged.c, mm/ksm.c, fs/jbd2/journal.c (jbd2/<dev>-8), kernel/irq/manage.c
// (irq/<nr>-<name>), kernel/hung_task.c (khungtaskd), kernel/audit.c (kauditd), drivers/scsi/hosts.c (scsi_eh_<n>,
// scsi_tmf_<n>), drivers/watchdog (watchdogd), drivers/base/devtmpfs.c (kdevtmpfs), mm/oom_kill.c (oom_reaper).

export interface KernelThreadName {
  pattern: RegExp;
  /** A userland daemon of the same name exists (troglobit's watchdogd): a name match alone is not enough. */
  ambiguous?: boolean;
}

export const KERNEL_THREAD_NAMES: readonly KernelThreadName[] = [
  { pattern: /^kthreadd$/ },
  { pattern: /^kworker\/(?:u?\d+:\d+H?|R)(?:-[\w.:-]+)?$/ },
  { pattern: /^kworker\/[\w:.+-]*$/ },
  { pattern: /^ksoftirqd\/\d+$/ },
  { pattern: /^migration\/\d+$/ },
  { pattern: /^(?:rcu_(?:sched|bh|preempt|gp|par_gp|tasks\w*)|rcu_tasks_kthre\w*)$/ },
  { pattern: /^rcu[cob]\/\d+$/ },
  { pattern: /^rcuo[sp]\/\d+$/ },
  { pattern: /^cpuhp\/\d+$/ },
  { pattern: /^idle_inject\/\d+$/ },
  { pattern: /^watchdog\/\d+$/ },
  { pattern: /^watchdogd$/, ambiguous: true },
  { pattern: /^kswapd\d+$/ },
  { pattern: /^kcompactd\d+$/ },
  { pattern: /^(?:khugepaged|ksmd|khungtaskd|kauditd|kdevtmpfs|oom_reaper|kblockd|writeback|kintegrityd|kthrotld|netns|mm_percpu_wq|charger_manager|kaluad(?:_sync)?|ipv6_addrconf|kstrp|ecryptfs-kthrea\w*)$/ },
  { pattern: /^jbd2\/[\w.-]+$/ },
  { pattern: /^irq\/\d+-[\w.:-]+$/ },
  { pattern: /^scsi_(?:eh|tmf)_\d+$/ },
  { pattern: /^ext4-rsv-conver$/ },
  // Not a bare /^xfs/: xfs_fsr, xfs_repair and xfsdump are userland tools.
  { pattern: /^xfs(?:alloc|_mru_cache|aild\/[\w.-]+|-[a-z]+\/[\w.-]+)$/ },
];

/** The kernel-thread entry a name matches, if any (brackets stripped). */
export function kernelThreadName(name: string): KernelThreadName | undefined {
  const bare = name.trim().replace(/^\[(.*)\]$/, "$1");
  return KERNEL_THREAD_NAMES.find((k) => k.pattern.test(bare));
}
