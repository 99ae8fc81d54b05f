/**
 * The gateway's OAuth 2.0 Protected Resource Metadata (RFC 9728), which tells a host
 * where to sign in: at `/.well-known/oauth-protected-resource` followed by the MCP
 * endpoint's path (`/mcp`), the place the 401 challenge points to, and at the root form
 * hosts fall back to. For hosts of the 2025-03-26 revision, which look for authorization
 * server metadata at the MCP server's own origin, `/.well-known/oauth-authorization-server`
 * mirrors the issuer's (as the MCP SDK's `mcpAuthMetadataRouter` does). Public documents:
 * any origin may read them (CORS), GET and OPTIONS only.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OAuthProtectedResourceMetadata } from '@modelcontextprotocol/server';
import type { HostOAuthConfig } from '../../config/schema.js';
import type { Issuer } from './issuer.js';

const PROTECTED_RESOURCE = '/.well-known/oauth-protected-resource';
const AUTHORIZATION_SERVER = '/.well-known/oauth-authorization-server';

/** The metadata document: the resource, its one authorization server, the scopes a token needs, header bearer tokens only. */
export function protectedResourceMetadata(config: HostOAuthConfig): OAuthProtectedResourceMetadata {
  return {
    resource: config.resource,
    authorization_servers: [config.issuer],
    ...(config.scopes.length > 0 && { scopes_supported: config.scopes }),
    bearer_methods_supported: ['header'],
    resource_name: config.resource_name,
  };
}

/**
 * Where the 401 challenge's `resource_metadata` points: the well-known path followed by
 * the resource's path (`https://mcp.example.com/.well-known/oauth-protected-resource/mcp`).
 * The SDK's `getOAuthProtectedResourceMetadataUrl` computes the same, but its module loads
 * Express and its middleware, which the gateway does not otherwise load.
 */
export function metadataUrl(config: HostOAuthConfig): string {
  const resource = new URL(config.resource);
  const path = resource.pathname === '/' ? '' : resource.pathname;
  return new URL(`${PROTECTED_RESOURCE}${path}`, resource).href;
}

/** The paths the protected-resource document is served at: the resource's path form, `/mcp`, and the root form. */
function documentPaths(config: HostOAuthConfig): Set<string> {
  const path = new URL(config.resource).pathname.replace(/\/$/, '');
  return new Set([PROTECTED_RESOURCE, `${PROTECTED_RESOURCE}${path}`, `${PROTECTED_RESOURCE}/mcp`]);
}

function send(res: ServerResponse, req: IncomingMessage, status: number, body?: unknown): void {
  const headers: Record<string, string> = {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, OPTIONS',
    // Hosts send MCP-Protocol-Version on discovery requests: a browser asks first whether it may.
    'access-control-allow-headers': String(req.headers['access-control-request-headers'] ?? 'mcp-protocol-version'),
    'cache-control': 'public, max-age=300',
  };
  if (body === undefined) return void res.writeHead(status, headers).end();
  res.writeHead(status, { ...headers, 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/**
 * A request handler for the metadata paths.
 * @returns a function that answers a request for one of them and returns true, or returns false for any other path.
 */
export function metadataHandler(config: HostOAuthConfig, issuer: Issuer): (req: IncomingMessage, res: ServerResponse, path: string) => boolean {
  const document = protectedResourceMetadata(config);
  const paths = documentPaths(config);
  return (req, res, path) => {
    const mirror = path === AUTHORIZATION_SERVER;
    if (!paths.has(path) && !mirror) return false;
    if (req.method === 'OPTIONS') send(res, req, 204);
    else if (req.method !== 'GET' && req.method !== 'HEAD') send(res, req, 405, { error: `method ${req.method} not allowed; metadata is read with GET` });
    else if (!mirror) send(res, req, 200, document);
    else {
      issuer.metadata().then(
        (m) => send(res, req, 200, m),
        (err: Error) => send(res, req, 502, { error: `the identity provider's metadata is not available: ${err.message}` }),
      );
    }
    return true;
  };
}
