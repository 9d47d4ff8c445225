/**
 * The evaluation harness for tests: a test environment (MariaDB with telco_db, TALLY_HOME, its own
 * instance), the scripted model server with `script`, and the harness on them. close() cleans up all.
 * `env` adds to (or overrides) the environment tally's config is read from, e.g.
 * `{ TALLY_PROFILE_FILES: 'off' }`.
 */
import { loadConfig } from '../../src/base/config.js';
import { createLogger } from '../../src/base/logger.js';
import {
  type ScriptedModelServer,
  type ScriptStep,
  startScriptedModelServer,
} from '../../src/demo/scripted-model-server.js';
import { type EvalHarness, startEvalHarness } from '../../src/eval/eval-harness.js';
import { createLlmClient } from '../../src/llm/create-llm-client.js';
import { cleanUp } from './clean-up.js';
import { createTestEnvironment, type TestEnvironment } from './test-environment.js';

export interface EvalFixture {
  environment: TestEnvironment;
  server: ScriptedModelServer;
  harness: EvalHarness;
  close(): Promise<void>;
}

export async function startEvalFixture(
  prefix: string,
  script: ScriptStep[],
  env: Record<string, string> = {},
): Promise<EvalFixture> {
  const environment = await createTestEnvironment(prefix);
  const server = await startScriptedModelServer({ script });
  const config = loadConfig({ ...environment.env(server.url), ...env });
  const logger = createLogger({ level: config.logLevel });
  const harness = await startEvalHarness({ config, logger, llm: createLlmClient(config.llm, logger) });
  return {
    environment,
    server,
    harness,
    close: () =>
      cleanUp(
        () => harness.close(),
        () => server.close(),
        () => environment.close(),
      ),
  };
}
