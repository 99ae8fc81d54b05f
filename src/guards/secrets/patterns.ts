/**
 * Well-known secret formats, found by their shape rather than because the gateway holds
 * them (`guards.secrets`): PEM private keys, AWS access key ids and secret access keys
 * (next to their name), GitHub, GitLab and Slack tokens, Slack webhook URLs, Google API
 * keys, Stripe secret keys and JWTs. The shapes are the providers' documented prefixes
 * and lengths (as secret scanners such as gitleaks spell them); each pattern starts with a
 * literal, so V8 skips ahead to it instead of trying every position (a lookbehind for the
 * AWS secret's name cost 5 ms per MB; matching the name and keeping group 1 costs 0.2).
 */
import type { Found } from './matcher.js';

/** A PEM body longer than this is not looked for past it (an RSA 4096-bit key is ~3.3 KB). */
const PEM_BODY = 16_384;

const KINDS: { kind: string; re: RegExp }[] = [
  {
    kind: 'private key',
    // With its END line, or (cut off) its base64 body; `\n` may be JSON-escaped.
    re: new RegExp(
      `-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:(?:(?!-----)[\\s\\S]){0,${PEM_BODY}}?-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----|(?:[A-Za-z0-9+/=:,\\s-]|\\\\[nr]){16,${PEM_BODY}})`,
      'g',
    ),
  },
  { kind: 'AWS access key id', re: /\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{16}\b/g },
  // 40 characters of base64 right after a name that says what it is; only the value (group 1) is removed.
  { kind: 'AWS secret access key', re: /(?:secret|SECRET|Secret)_?(?:access|ACCESS|Access)_?(?:key|KEY|Key)["']?\s*[:=]\s*["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/dg },
  { kind: 'GitHub token', re: /\b(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,244})\b/g },
  { kind: 'GitLab token', re: /\bgl(?:pat|dt|ptt|rt|oas|ft|soat|cbt|imt|agent)-[0-9A-Za-z_-]{20,}/g },
  { kind: 'Slack token', re: /\b(?:xox[abposr]-[0-9A-Za-z-]{10,250}|xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+)/g },
  { kind: 'Slack webhook URL', re: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9+/_-]{20,}/g },
  { kind: 'Google API key', re: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g },
  { kind: 'Stripe secret key', re: /\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,247}\b/g },
  { kind: 'JWT', re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/g },
];

/** The names of the formats, as markers and refusals name them. */
export const PATTERN_KINDS: readonly string[] = KINDS.map((k) => k.kind);

/**
 * Each well-known secret in `text`, labelled by its kind.
 *
 * ### Usage
 * ```ts
 * findPatternSecrets('key AKIAIOSFODNN7EXAMPLE here');
 * // [{ start: 4, end: 24, label: 'AWS access key id' }]
 * ```
 */
export function findPatternSecrets(text: string): Found[] {
  const found: Found[] = [];
  for (const { kind, re } of KINDS) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      const [start, end] = m.indices?.[1] ?? [m.index, m.index + m[0].length];
      found.push({ start, end, label: kind });
    }
  }
  return found;
}
