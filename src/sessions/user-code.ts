/** A fenced ```python or ```sql block in a message runs as it is, without the model. */

export interface UserCode {
  language: 'python' | 'sql';
  code: string;
}

const FENCE = /```(python|py|sql)[^\n]*\n([\s\S]*?)```/i;

export function findUserCode(text: string): UserCode | undefined {
  const match = FENCE.exec(text);
  if (!match?.[1] || match[2] === undefined) return undefined;
  const language = match[1].toLowerCase() === 'sql' ? 'sql' : 'python';
  const code = match[2].trim();
  return code === '' ? undefined : { language, code };
}
