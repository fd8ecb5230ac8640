// Fleet files for black-box tests (docs/api.md#agents, fleet file).

/** A fleet of one prod host running a cryptominer that talks to its pool: every detection route finds it. */
export function minerFleet(agentId: string, hostname: string): { agents: unknown[] } {
  return {
    agents: [
      {
        agent_id: agentId,
        hostname,
        tags: { env: "prod" },
        tables: {
          processes: [{ pid: 7, name: "xmrig", path: "/tmp/xmrig", cmdline: "/tmp/xmrig -o stratum+tcp://198.51.100.9:3333", uid: 1000, parent: 1, on_disk: 1 }],
          process_open_sockets: [{ pid: 7, remote_address: "198.51.100.9", remote_port: 3333, local_port: 40000, state: "ESTABLISHED" }],
        },
      },
    ],
  };
}
