/**
 * The curation query of a conversation: the text of its last user message. Works on the
 * message shapes of the AI SDK and OpenAI (`{ role: 'user', content }`), LangChain
 * (`HumanMessage`, type 'human') and the Agents SDK's input items; content may be a string
 * or an array of parts whose text parts are joined.
 */

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((p) => (typeof p === 'string' ? p : typeof p === 'object' && p !== null && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : ''))
      .filter(Boolean)
      .join(' ');
  }
  return '';
}

function roleOf(m: Record<string, unknown>): unknown {
  if (typeof m.role === 'string') return m.role;
  if (typeof m.getType === 'function') return (m.getType as () => string)();
  return m.type;
}

/**
 * ### Usage
 * ```ts
 * lastUserText([{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }, { role: 'user', content: 'pay my fees' }]); // 'pay my fees'
 * ```
 * @returns '' when there is no user message with text (the curator then returns every allowed tool).
 */
export function lastUserText(messages: string | readonly unknown[]): string {
  if (typeof messages === 'string') return messages;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (typeof m !== 'object' || m === null) continue;
    const role = roleOf(m as Record<string, unknown>);
    if (role === 'user' || role === 'human') {
      const text = textOf((m as { content?: unknown }).content);
      if (text) return text;
    }
  }
  return '';
}
