/** Why the guard refused SQL: the one shape every tokenizer, scope check and the guard itself report. */
export interface SqlProblem {
  reason: string;
  hint?: string;
  /**
   * What may be read instead, when the problem is where the statement reads from rather than what kind of
   * statement it is (schema scope); replaces the guard's usual "Only one read-only statement …" sentence.
   */
  allowed?: string;
}
