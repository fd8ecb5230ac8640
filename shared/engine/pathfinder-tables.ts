// The tables the pathfinder's entity graph is built from (graph.ts): a plan that follows leads asks the agents for
// these. Apart from graph.ts so that routing a question does not load the graph and the baselines it reads.
export const PATHFINDER_TABLES: readonly string[] = [
  "authorized_keys", "crontab", "hash", "last", "listening_ports", "logged_in_users", "process_open_sockets", "processes", "users",
];
