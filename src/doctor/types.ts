/** What `tool-curator doctor` reports: findings per check, upstreams, personas (doctor.ts builds it; the other doctor modules add findings). */

export type Level = 'ok' | 'info' | 'warn' | 'error';

export interface Finding {
  /** What was checked: `config`, `store`, `upstream`, `per-user` (upstreams acting with each user's account), `approvers` (who decides on the approvals page), `pinned` (tool definitions), `persona`, `embedder`. */
  check: string;
  level: Level;
  /** The file a config finding is about. */
  file?: string;
  /** Key path inside that file, e.g. `http.tokens.0.token` or `student.allow.2`. */
  key?: string;
  message: string;
}

export interface UpstreamReport {
  name: string;
  transport: 'stdio' | 'http';
  state: 'ready' | 'failed';
  /** The protocol era it was reached with (`2026-07-28` or `2025`); unset when it failed. */
  era?: '2026-07-28' | '2025';
  tools: number;
  /** Spawn or connect, initialize and tools/list, in ms. */
  startMs: number;
  /** One ping round trip once connected, in ms. */
  pingMs?: number;
  /** How the gateway authenticates to it; see `authState`. */
  auth: string;
  /** Scopes a tool asked for (403 insufficient_scope) that wait for `tool-curator auth <name>`; the other tools work. */
  moreScope?: string;
  error?: string;
}

export interface PersonaReport {
  persona: string;
  tools: number;
  /** Patterns (`allow.N` / `deny.N`) that match no tool of the started upstreams. */
  unmatched: { key: string; pattern: string }[];
}

export interface DoctorReport {
  config?: string;
  findings: Finding[];
  upstreams: UpstreamReport[];
  personas: PersonaReport[];
  embedder?: { id: string; why: string };
  /** 0 when every check passed, 1 when any is an error or warning. */
  exitCode: number;
}
