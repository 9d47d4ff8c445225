/**
 * The turn's own message: what was found for this request (the tables it needs, the shared files,
 * the knowledge that fits), then the request. It goes after the history, so the system prompt and
 * everything sent before stay a byte-identical prefix the provider's prompt cache can serve; it stays
 * in the history, so later turns repeat it unchanged too.
 */

/** Heads what was found for the request; the request follows it under {@link REQUEST_HEADING}. */
export const FOUND_HEADING = 'For this request (use the columns listed here):';
export const REQUEST_HEADING = 'The request:';

/** The message; the request alone when nothing was found for it. */
export function turnMessage(request: string, found: string): string {
  return found.trim() === '' ? request : `${FOUND_HEADING}\n${found}\n\n${REQUEST_HEADING}\n${request}`;
}

/** The request a turn message carries (the message itself when it carries nothing else). */
export function requestOfTurnMessage(content: string): string {
  const at = content.indexOf(`\n\n${REQUEST_HEADING}\n`);
  return content.startsWith(FOUND_HEADING) && at >= 0 ? content.slice(at + REQUEST_HEADING.length + 3) : content;
}

/** The plan a request follows: a message of its own (a thread that always plans), or triage's result. */
export function planMessage(plan: string): string {
  return `Plan to follow (give each tool call the plan_step it works on):\n${plan}`;
}
