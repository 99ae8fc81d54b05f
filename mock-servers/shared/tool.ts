/**
 * How a university server defines and serves its tools. `defineTool` binds a zod input
 * shape, MCP annotations and a handler; every handler failure becomes an MCP error
 * result (`isError: true`) whose text says what is wrong, never a crashed server.
 * Action tools run inside one IMMEDIATE transaction, so a failed check leaves no
 * half-written state and concurrent servers serialize their writes.
 */
import { McpServer, type CallToolResult } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';
import { openUniversityDb, universityDbPath, type Db } from './db.js';
import { ToolError } from './errors.js';

export { ToolError };


export interface ToolSpec<S extends z.ZodRawShape> {
  name: string;
  /** Contract: what the tool returns, what sets it apart from its look-alikes. */
  description: string;
  /** zod raw shape; each field's `.describe()` becomes its JSON Schema description. */
  input: S;
  /** Changes fixture state: `readOnlyHint: false`, run in a write transaction. */
  action?: boolean;
  /** Deletes, cancels or withdraws something: `destructiveHint: true`. */
  destructive?: boolean;
  run(args: z.output<z.ZodObject<S>>, db: Db): unknown;
}

export interface ToolDef {
  name: string;
  action: boolean;
  register(server: McpServer, db: Db): void;
}

function errorText(tool: string, err: unknown): string {
  if (err instanceof ToolError) return err.message;
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof Error && err.name === 'SqliteError') return `${tool}: the fixture database refused the change: ${message}`;
  return `${tool} failed: ${message}`;
}

function execute<S extends z.ZodRawShape>(spec: ToolSpec<S>, db: Db, args: z.output<z.ZodObject<S>>): CallToolResult {
  try {
    const run = () => spec.run(args, db);
    const result = spec.action ? db.transaction(run).immediate() : run();
    if (result === undefined || result === null) throw new Error('the handler returned no result');
    return { content: [{ type: 'text', text: JSON.stringify(result, null, 2) }] };
  } catch (err) {
    return { isError: true, content: [{ type: 'text', text: errorText(spec.name, err) }] };
  }
}

export function defineTool<S extends z.ZodRawShape>(spec: ToolSpec<S>): ToolDef {
  return {
    name: spec.name,
    action: spec.action ?? false,
    register(server, db) {
      server.registerTool(
        spec.name,
        {
          description: spec.description,
          inputSchema: z.object(spec.input),
          annotations: spec.action
            ? { readOnlyHint: false, destructiveHint: spec.destructive ?? false, idempotentHint: false, openWorldHint: false }
            : { readOnlyHint: true, openWorldHint: false },
        },
        ((args: z.output<z.ZodObject<S>>) => execute(spec, db, args)) as never,
      );
    },
  };
}

/**
 * Serves `tools` over stdio as the university's `name` server. Logs go to stderr only:
 * stdout is the protocol. Exits with status 1 if the fixture cannot be opened.
 */
export function serve(name: string, tools: ToolDef[]): void {
  const start = async () => {
    const db = openUniversityDb();
    const server = new McpServer({ name: `university-${name}`, version: '1.0.0' });
    for (const t of tools) t.register(server, db);
    await server.connect(new StdioServerTransport());
    process.stderr.write(`university-${name}: ${tools.length} tools on stdio, fixture ${universityDbPath()}\n`);
  };
  start().catch((err: unknown) => {
    process.stderr.write(`university-${name} failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
