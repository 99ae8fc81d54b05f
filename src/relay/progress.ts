/**
 * Progress, host ← upstream. The host's `_meta.progressToken` on a tools/call makes the
 * gateway ask the upstream for progress (the SDK gives the upstream call its own token);
 * each upstream `notifications/progress` goes back to the host under the host's token,
 * with progress, total and message unchanged. A host that asked for no progress gets
 * none, and the upstream is not asked for any.
 */
import type { Progress } from '@modelcontextprotocol/server';
import { log } from '../log.js';
import type { HostRequest } from './types.js';

/** The `onprogress` for an upstream call made for `request`; undefined when the host gave no token. */
export function relayProgress(request: HostRequest): ((progress: Progress) => void) | undefined {
  if (request.progressToken === undefined) return undefined;
  return (progress) => {
    // Read at each message: a held call's token is that of the host's current round (bridge.ts).
    const token = request.progressToken;
    if (token === undefined) return;
    request.sendNotification({ method: 'notifications/progress', params: { ...progress, progressToken: token } }).catch((err: Error) => {
      log.debug({ session: request.session.id, err: err.message }, 'could not relay progress (host gone?)');
    });
  };
}
