/**
 * The relay end to end over stdio: a real SDK Client as the host, the built gateway,
 * and the fixture upstream spawned by it over stdio. A stdio gateway serves one session,
 * so the host without capabilities has a gateway process of its own.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { relayConfig, stdioHost, stdioUpstream, type Host } from './harness.js';
import { relayScenarios } from './scenarios.js';

describe('relay: stdio host, stdio upstream', () => {
  let host: Host;
  let bare: Host;

  beforeAll(async () => {
    const config = relayConfig(stdioUpstream());
    [host, bare] = await Promise.all([stdioHost(config), stdioHost(config, {})]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([host?.close(), bare?.close()]);
  });

  relayScenarios(() => host, () => bare);
});
