#!/usr/bin/env node
/**
 * The host for the conformance suite's client scenarios: the suite starts its test server
 * (and, for auth/*, its authorization server) and runs `node client-host.mjs <url>`.
 * This script plays an MCP host with the SDK's real Client: it writes a gateway config
 * with the scenario's URL as the one upstream (with the auth config the scenario needs),
 * runs `tool-curator auth` where consent is needed (following the printed authorization
 * URL like a browser would), starts `tool-curator serve` over stdio and does through the
 * gateway what the suite's own example client does directly for that scenario (its plan
 * below: tool calls through `call_tool`, resource reads, prompts). The gateway is the
 * client under test: which protocol revision it speaks to the scenario's server is its
 * own negotiation (MCP_CONFORMANCE_PROTOCOL_VERSION tells the suite's server, not it).
 *
 * Exit code 0 when every step of the plan succeeded through the gateway.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = join(ROOT, 'dist/src/cli.js');
/** The suite's fixed client ID metadata document URL (its CIMD scenario expects exactly this one). */
const CIMD_URL = 'https://conformance-test.local/client-metadata.json';

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}');
const say = (...a) => process.stderr.write(`[host] ${a.join(' ')}\n`);

const call = (name, args = {}) => ({ call: name, args });
/**
 * What the host does for each scenario, in order; anything not named (the auth/*
 * scenarios) calls the suite's `test-tool`. `echo` calls json_schema_echo with the
 * inputSchema the host sees for the named tool (pinned, so tools/list shows it).
 */
const PLANS = {
  initialize: [],
  'request-metadata': [],
  'json-schema-ref-no-deref': [],
  tools_call: [call('add_numbers', { a: 2, b: 3 })],
  'sse-retry': [call('test_reconnection')],
  'elicitation-sep1034-client-defaults': [call('test_client_elicitation_defaults')],
  'sep-2322-client-request-state': ['test_mrtr_echo_state', 'test_mrtr_unrelated', 'test_mrtr_no_state', 'test_mrtr_no_result_type'].map((n) => call(n)),
  'http-standard-headers': [
    call('test_headers'),
    call('my-hyphenated-tool'),
    { read: 'file:///path/to/file%20name.txt' },
    { read: 'https://example.com/resource?id=123' },
    { prompt: 'test_prompt' },
  ],
  'http-custom-headers': (context.toolCalls ?? []).map((t) => call(t.name, t.arguments)),
  'http-invalid-tool-headers': [call('valid_tool', { region: 'us-west1' })],
  'json-schema-2020-12-preservation': [{ echo: 'json_schema_2020_12_tool' }],
};
const steps = PLANS[scenario] ?? [call('test-tool')];

function authConfig() {
  if (!scenario.startsWith('auth/')) return undefined;
  if (scenario === 'auth/client-credentials-basic') return { client_credentials: { client_id: context.client_id, client_secret: context.client_secret } };
  if (scenario === 'auth/client-credentials-jwt') {
    return { client_credentials: { client_id: context.client_id, private_key: context.private_key_pem, algorithm: context.signing_algorithm ?? 'ES256' } };
  }
  if (context.client_id && context.client_secret) return { oauth: { client_id: context.client_id, client_secret: context.client_secret } };
  return { oauth: { client_metadata_url: CIMD_URL } };
}

const dir = mkdtempSync(join(tmpdir(), 'tc-conformance-'));
const configFile = join(dir, 'gateway.config.yaml');
const auth = authConfig();
// JSON is YAML.
writeFileSync(
  configFile,
  JSON.stringify({
    upstreams: { upstream: { url, ...(auth && { auth }) } },
    curator: { mode: 'none' },
    ...(scenario === 'json-schema-2020-12-preservation' && { exposure: { mode: 'static', pinned: ['json_schema_2020_12_tool'] } }),
    store: join(dir, 'store.db'),
    // The scenarios' tools change no state but carry no annotations, which MCP's defaults
    // read as "may change state": the operator says they are read-only, so none waits for an approval.
    confirmation: { read_only: ['upstream.*'] },
    timeouts: { startup_ms: 10000, call_ms: 15000 },
  }),
);

/**
 * `tool-curator auth upstream`, acting as the user's browser: every authorization URL it
 * prints is requested, and the authorization server's redirect is followed to the
 * gateway's loopback listener. Resolves to the exit code.
 */
function runAuth() {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [CLI, 'auth', 'upstream', '--config', configFile], { stdio: ['ignore', 'pipe', 'inherit'] });
    let buffer = '';
    child.stdout.on('data', (chunk) => {
      buffer += chunk.toString();
      let nl;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl).trim();
        buffer = buffer.slice(nl + 1);
        say('auth:', line);
        if (/^https?:\/\//.test(line)) void visit(line);
      }
    });
    child.on('exit', (code) => resolvePromise(code ?? 1));
  });
}

async function visit(authorizationUrl) {
  try {
    const res = await fetch(authorizationUrl, { redirect: 'manual' });
    const location = res.headers.get('location');
    if (!location) return say(`authorization URL answered ${res.status} without a redirect`);
    const back = await fetch(location);
    say(`redirect delivered: ${back.status}`);
  } catch (err) {
    say(`visiting the authorization URL failed: ${err.message}`);
  }
}

const isOAuth = auth && 'oauth' in auth;
if (isOAuth) say(`auth exited with ${await runAuth()}`);

const transport = new StdioClientTransport({
  command: process.execPath,
  args: [CLI, 'serve', '--config', configFile],
  env: { ...process.env, TOOL_CURATOR_LOG: 'info' },
  stderr: 'inherit',
});
const client = new Client({ name: 'conformance-host', version: '1.0.0' }, { capabilities: { elicitation: { form: { applyDefaults: true } } } });
// The person accepts every question an upstream asks through the gateway (the form's defaults fill it).
client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: {} }));
await client.connect(transport);
const listed = await client.listTools();
say('tools:', listed.tools.map((t) => t.name).join(', '));

/** Runs one step; resolves to whether it succeeded. */
async function perform(step) {
  if (step.read) return client.readResource({ uri: step.read }).then(() => true, (err) => (say(`read ${step.read}:`, err.message), false));
  if (step.prompt) return client.getPrompt({ name: step.prompt }).then(() => true, (err) => (say(`prompt ${step.prompt}:`, err.message), false));
  if (step.echo) {
    const schema = listed.tools.find((t) => t.name === step.echo)?.inputSchema;
    if (!schema) return say(`${step.echo} is not in tools/list`), false;
    return perform(call('json_schema_echo', { schema }));
  }
  const callTool = () => client.callTool({ name: 'call_tool', arguments: { name: step.call, arguments: step.args } }, { timeout: 30000 });
  let result = await callTool();
  // A step-up the gateway could not do unattended: the person consents again (the message asks for them) and retries.
  for (let i = 0; i < 2 && result.isError && isOAuth && /needs authorization/.test(JSON.stringify(result.content)); i++) {
    say('call needs authorization:', JSON.stringify(result.content));
    say(`auth exited with ${await runAuth()}`);
    await new Promise((r) => setTimeout(r, 2500));
    result = await callTool();
  }
  say(`${step.call}:`, JSON.stringify(result).slice(0, 500));
  return !result.isError;
}

let ok = true;
for (const step of steps) ok = (await perform(step)) && ok;
await client.close();
process.exit(ok ? 0 : 1);
