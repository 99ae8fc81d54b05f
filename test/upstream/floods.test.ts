/**
 * Floods of notifications from an upstream, against the gateway in process (its catalog
 * version within reach) over the "bulky" fixture spawned over stdio; the host is the
 * SDK's Client. 2,000 tools/list_changed cost one re-list (counted by the upstream) and
 * one catalog rebuild; 40,000 log messages reach the host at the configured rate, the
 * rest counted in one warning, and trigger no re-list at all.
 */
import { join } from 'node:path';
import type { CallToolResult, Client, LoggingMessageNotification } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/gateway/gateway.js';
import { inProcessGateway } from '../relay/setup.js';
import { until } from '../helpers/reference.js';

const BULKY = join(import.meta.dirname, 'fixtures/bulky.mjs');
const PER_SECOND = 5;
const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

describe('notification floods from an upstream', () => {
  let gateway: Gateway;
  let host: Client;
  const logs: LoggingMessageNotification['params'][] = [];
  let listChanged = 0;

  beforeAll(async () => {
    ({ gateway, host } = await inProcessGateway(
      { bulky: { command: process.execPath, args: [BULKY] } },
      { relay: { max_log_per_second: PER_SECOND }, timeouts: { startup_ms: 120_000 } },
    ));
    host.setNotificationHandler('notifications/message', (n) => void logs.push(n.params));
    host.setNotificationHandler('notifications/tools/list_changed', () => void listChanged++);
  }, 180_000);
  afterAll(async () => {
    await host?.close();
    await gateway?.close();
  });

  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await host.callTool({ name: 'call_tool', arguments: { name, arguments: args } }, { timeout: 300_000 })) as CallToolResult;
  const listed = async () => (JSON.parse(text(await call('stats'))) as { listed: number }).listed;

  it('2,000 tools/list_changed: one re-list, one catalog rebuild, one list_changed to the host', async () => {
    const before = await listed();
    const version = gateway.version;
    expect(text(await call('flood_list_changed', { n: 2000, add: 'added_tool' }))).toBe('sent 2000');
    await until(() => gateway.catalog.some((t) => t.name === 'added_tool'), 'the added tool in the catalog');
    const relists = (await listed()) - before;
    console.log(`flood: 2,000 tools/list_changed → ${relists} tools/list, ${gateway.version - version} catalog rebuild`);
    expect(relists).toBeGreaterThanOrEqual(1);
    expect(relists).toBeLessThanOrEqual(2);
    expect(gateway.version - version).toBe(1);
    await until(() => listChanged > 0, 'list_changed at the host');
    expect(listChanged).toBe(1);
  }, 300_000);

  it(`40,000 log messages during a call: ${PER_SECOND} per second reach the host, one warning counts the rest, no re-list`, async () => {
    // A re-list the previous flood's burst still owes may land late on a loaded machine: start once the count holds still.
    let before = await listed();
    for (let again = -1; again !== before; ) {
      if (again !== -1) before = again;
      await new Promise((resolve) => setTimeout(resolve, 1000));
      again = await listed();
    }
    const started = performance.now();
    expect(text(await call('flood_log', { n: 40_000 }))).toBe('sent 40000');
    const relayed = () => logs.filter((l) => l.logger !== 'tool-curator');
    const warnings = () => logs.filter((l) => l.logger === 'tool-curator').map((l) => String(l.data));
    const dropped = () => warnings().reduce((n, w) => n + Number(/^dropped (\d+) log messages of upstream "bulky": more than 5 per second \(relay\.max_log_per_second\)$/.exec(w)?.[1] ?? NaN), 0);
    // Every message is either relayed or counted in a warning (one per pause in the flood).
    await until(() => relayed().length + dropped() >= 40_000, 'the warning about dropped messages');
    const seconds = (performance.now() - started) / 1000;
    console.log(`flood: 40,000 log messages in ${seconds.toFixed(1)} s → ${relayed().length} relayed, ${dropped()} dropped in ${warnings().length} warning(s)`);
    expect(relayed().length + dropped()).toBe(40_000);
    expect(warnings().length).toBeLessThanOrEqual(Math.ceil(seconds));
    // The bucket holds PER_SECOND and refills at PER_SECOND a second.
    expect(relayed().length).toBeLessThanOrEqual(PER_SECOND * (Math.ceil(seconds) + 1));
    expect(relayed().map((l) => l.data).slice(0, PER_SECOND)).toEqual(['line 0', 'line 1', 'line 2', 'line 3', 'line 4']);
    expect((await listed()) - before).toBe(0);
  }, 300_000);
});
