/**
 * What the name guard may do with a name that is not in the catalog, decided per pair
 * (requested, candidate) from the names' tokens alone:
 *
 *   same     equal ignoring case (`Get_Fee_Dues`): not a correction at all
 *   typo     same tokens in the same order, each differing token a few character edits
 *            from its counterpart (`attendence` → `attendance`, `recieve` → `receive`),
 *            or the same letters cut differently (`getFeeDues`, `getfee_dues`)
 *   different anything else: a token added or removed (`get_attendance` ↔
 *            `get_attendance_policy`), a negating or reversing affix (`unenroll` ↔
 *            `enroll`, `deregister` ↔ `register`), a verb or antonym swap (`get` ↔ `post`,
 *            `enable` ↔ `disable`), or another word, however few letters it differs by
 *            (`grades` ↔ `profile`, and `nodes` ↔ `notes`, `chart` ↔ `charity`: two real
 *            words, not a slip of one; english.ts's dictionary tells them apart; and
 *            `mysql` ↔ `mssql`: two products, PRODUCT_NAMES)
 *
 * Only `same` and `typo` may be corrected silently; `different` is at most a "did you mean".
 */
import { englishWords, type WordCheck } from '../curator/english.js';
import { sStem } from '../curator/tokenize.js';
import { isSwap } from '../curator/typos.js';
import { log } from '../log.js';

export type PairKind = 'same' | 'typo' | 'different';

/** Lower-case words of a tool name: split on `_`, `-`, `.`, spaces and camelCase. */
export function nameTokens(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/**
 * Prefixes that negate or reverse the word they precede. `in`/`im`/`il`/`ir` negate only
 * some words, but a name guard cannot tell which, so it treats them all as reversing:
 * the cost is a "did you mean" where a correction would have been right.
 */
const REVERSING_PREFIXES = ['un', 'de', 'dis', 're', 'non', 'in', 'im', 'il', 'ir', 'anti', 'counter', 'mis'];

/**
 * Verbs that open tool names. Two different ones never make a typo of each other, however
 * close their letters (`get`/`set`, `post`/`put`, `add`/`and`).
 */
const VERBS = new Set(
  ('get list read fetch show view search find query check count describe lookup load watch ' +
    'post put set update patch edit modify change write save store upsert replace rename move copy ' +
    'create add insert make new submit apply raise register enroll enrol book reserve request issue open start enable ' +
    'activate grant assign approve accept allow confirm publish send upload import attach subscribe follow lock mount ' +
    'login signin push pay charge deposit increase increment inc push merge join ' +
    'delete remove del cancel undo revoke drop withdraw deregister unregister unenroll close stop end disable ' +
    'deactivate unassign reject deny decline unpublish download export detach unsubscribe unfollow unlock unmount ' +
    'logout signout pull refund reverse decrease decrement dec rollback restore reset clear purge archive kill terminate ' +
    'suspend resume block unblock ban unban return renew extend run exec execute call invoke trigger schedule reschedule').split(' '),
);

/** Word pairs of opposite meaning that are not both verbs (the verbs are covered above). */
const ANTONYMS: [string, string][] = [
  ['on', 'off'], ['in', 'out'], ['up', 'down'], ['max', 'min'], ['first', 'last'], ['next', 'prev'],
  ['before', 'after'], ['true', 'false'], ['yes', 'no'], ['all', 'none'], ['input', 'output'],
  ['inbound', 'outbound'], ['incoming', 'outgoing'], ['public', 'private'], ['visible', 'hidden'],
  ['encrypt', 'decrypt'], ['encode', 'decode'], ['asc', 'desc'], ['head', 'tail'], ['older', 'newer'],
];
const OPPOSITE = new Map<string, Set<string>>();
for (const [a, b] of ANTONYMS) {
  OPPOSITE.set(a, (OPPOSITE.get(a) ?? new Set()).add(b));
  OPPOSITE.set(b, (OPPOSITE.get(b) ?? new Set()).add(a));
}

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions), stopping past `limit`. */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      cur.push(d);
      rowMin = Math.min(rowMin, d);
    }
    if (rowMin > limit) return limit + 1;
    prev2 = prev;
    prev = cur;
  }
  return prev[b.length]!;
}

/** Edits a token may carry and still be a typo of another: 1 up to 6 letters, 2 beyond. */
function allowedEdits(a: string, b: string): number {
  return Math.max(a.length, b.length) <= 6 ? 1 : 2;
}

/**
 * `long` is `short` with a reversing prefix, allowing one slip in the rest (`unenrol` ↔
 * `enroll`), unless the whole difference is one slip anyway (`register` ↔ `rgister`).
 */
function reversedBy(long: string, short: string): boolean {
  return REVERSING_PREFIXES.some(
    (p) =>
      long.startsWith(p) &&
      long.length - p.length >= 3 &&
      editDistance(long.slice(p.length), short, 1) <= 1 &&
      editDistance(long, short, p.length) >= p.length,
  );
}

/**
 * `long` is the whole of `short` with one letter put before it — `nack` (a negative
 * acknowledgement) of `ack`, `async` of `sync`: another thing, often the opposite, not a
 * slip. A doubled first letter (`ggrade`) is a key pressed twice, so still a slip.
 */
function letterPrefixed(long: string, short: string): boolean {
  return long.length === short.length + 1 && long.slice(1) === short && long[0] !== short[0];
}

/** A role ending: `grantee`/`grantor`, `payee`/`payer`, `lessee`/`lessor` are the two sides of one relation. */
const ROLE_ENDING = /^(.{3,}?)(ee|or|er)$/;

/** `a` and `b` name the two parties of one relation: the same stem, one ending `-ee`, the other `-or` or `-er`. */
function otherParty(a: string, b: string): boolean {
  const ma = ROLE_ENDING.exec(a);
  const mb = ROLE_ENDING.exec(b);
  return !!ma && !!mb && ma[1] === mb[1] && ma[2] !== mb[2] && (ma[2] === 'ee' || mb[2] === 'ee');
}

/**
 * Names of products, services, formats and protocols that tools are named after. They are not
 * English words, but two of them a letter apart are two things, not a slip of one
 * (`query_mysql` ↔ `query_mssql`, `redis` ↔ `reddit`): tokenTypo treats them as words.
 */
const PRODUCT_NAMES = new Set(
  ('mysql mssql mariadb postgres postgresql psql sqlite sqlserver oracle redis valkey memcached mongo mongodb dynamo dynamodb ' +
    'cassandra scylla couchdb couchbase neo4j clickhouse bigquery redshift snowflake databricks duckdb influxdb timescale ' +
    'elastic elasticsearch opensearch solr kafka rabbitmq nats sqs sns pubsub kinesis ' +
    'aws gcp azure gcs s3 ec2 ecs eks lambda cloudflare vercel netlify heroku fly render ' +
    'github gitlab gitea bitbucket jira confluence linear asana trello notion airtable clickup monday basecamp ' +
    'slack discord teams zoom webex gmail outlook exchange imap smtp pop3 twilio sendgrid mailgun mailchimp ' +
    'stripe paypal braintree square adyen klarna shopify woocommerce magento salesforce hubspot zendesk intercom freshdesk ' +
    'docker podman kubernetes k8s k3s helm terraform pulumi ansible vagrant nomad consul vault ' +
    'npm pnpm yarn pip pypi conda cargo maven gradle nuget gem gems ' +
    'java javascript typescript python ruby rust golang kotlin swift scala php perl lua dart elixir erlang haskell ' +
    'json jsonl yaml yml toml xml csv tsv html xhtml css scss sass markdown pdf docx xlsx pptx png jpeg jpg gif webp svg ' +
    'http https ftp ftps sftp ssh scp tcp udp grpc graphql websocket mqtt amqp ldap ldaps saml oauth oidc ' +
    'ipv4 ipv6 dns dhcp vpn wifi bluetooth ' +
    'reddit twitter linkedin facebook instagram youtube tiktok mastodon bluesky spotify figma canva miro dropbox box onedrive sharepoint').split(' '),
);

let dictionary: WordCheck | undefined;

/**
 * The English dictionary (english.ts). Should it fail to load, every token counts as a word:
 * no two different words are then a typo of each other, so nothing but case, separators and
 * plurals is corrected, and every other near name gets "did you mean".
 */
function words(): WordCheck {
  if (!dictionary) {
    try {
      dictionary = englishWords();
    } catch (err) {
      log.warn({ err }, 'name guard: the English dictionary could not be loaded; near names are suggested, never corrected');
      dictionary = () => true;
    }
  }
  return dictionary;
}

/**
 * Whether `a` may be a mistyping of `b` (two different tokens of one position). Two real
 * words are not (`notes`/`nodes`, `date`/`data`), unless one is the other's plural (`due`/`dues`).
 * @param isWord English words; default the dictionary of english.ts
 */
export function tokenTypo(a: string, b: string, isWord: WordCheck = words()): boolean {
  if (VERBS.has(a) && VERBS.has(b)) return false;
  if (OPPOSITE.get(a)?.has(b)) return false;
  if (reversedBy(a, b) || reversedBy(b, a)) return false;
  if (letterPrefixed(a, b) || letterPrefixed(b, a) || otherParty(a, b)) return false;
  // Digits carry meaning (v1/v2, ids): a changed number is another tool.
  if (a.replace(/\D/g, '') !== b.replace(/\D/g, '')) return false;
  // In a token of three letters or fewer a changed letter makes another token (`az`/`al`, `de`/`dc`, `on`/`in`): only a swap is a slip there.
  if (Math.max(a.length, b.length) <= 3 && a.length === b.length && !isSwap(a, b)) return false;
  const limit = allowedEdits(a, b);
  if (Math.min(a.length, b.length) <= limit || editDistance(a, b, limit) > limit) return false;
  const known = (t: string) => PRODUCT_NAMES.has(t) || isWord(t);
  return sStem(a) === sStem(b) || !(known(a) && known(b));
}

/**
 * How `requested` relates to `candidate` (see the module comment).
 *
 * ### Usage
 * ```ts
 * classifyPair('get_attendence_summary', 'get_attendance_summary'); // 'typo'
 * classifyPair('unenroll_in_course', 'enroll_in_course');           // 'different'
 * classifyPair('Get_Fee_Dues', 'get_fee_dues');                     // 'same'
 * classifyPair('search_nodes', 'search_notes');                     // 'different' (two words)
 * ```
 * @param isWord English words; default the dictionary of english.ts
 */
export function classifyPair(requested: string, candidate: string, isWord: WordCheck = words()): PairKind {
  if (requested.toLowerCase() === candidate.toLowerCase()) return 'same';
  const r = nameTokens(requested);
  const c = nameTokens(candidate);
  // A separator dropped or added (`getfee_dues`): the letters agree, only the cuts differ.
  if (r.length !== c.length) return r.join('') === c.join('') ? 'typo' : 'different';
  return r.every((t, i) => t === c[i] || tokenTypo(t, c[i]!, isWord)) ? 'typo' : 'different';
}
