// Sends tools/list (2025 and 2026 shapes) with a _meta nested `depth` levels deep to serve --http; prints status per depth.
const [base, token, ...depths] = process.argv.slice(2);
for (const d of depths.map(Number)) {
  for (const era of ['2025', '2026']) {
    const meta = era === '2026' ? { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {}, deep: 'DEEP' } : { deep: 'DEEP' };
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: era === '2026' ? 'tools/list' : 'initialize', params: era === '2026' ? { _meta: meta } : { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' }, _meta: meta } }).replace('"DEEP"', '['.repeat(d) + ']'.repeat(d));
    const r = await fetch(base, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`, ...(era === '2026' && { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' }) }, body });
    console.log(`depth ${d} ${era}: ${r.status} ${(await r.text()).slice(0, 120)}`);
  }
}
