/**
 * The demo's reviewed analysis end to end against PostgreSQL (real sandbox, telco_db loaded with `telco:load
 * --url postgres://…`, the openai SDK against the scripted model), next to the same flow on MariaDB: the same
 * sections with the same counts and churn rates, every figure found in a result, and the report exported.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_REQUEST, DEMO_REVIEW, demoScript } from '../../src/demo/demo-script.js';
import { cleanUp } from '../support/clean-up.js';
import { postsOf, startTallyFixture, type TallyFixture } from '../support/tally-fixture.js';
import type { TestBackend } from '../support/test-environment.js';

const fixtures: TallyFixture[] = [];
afterAll(() => cleanUp(...fixtures.map((fixture) => () => fixture.close())));

async function demoOn(backend: TestBackend) {
  const fixture = await startTallyFixture(demoScript(), {}, {}, backend);
  fixtures.push(fixture);
  for (const text of [DEMO_REQUEST, ...DEMO_REVIEW]) await fixture.say(text);
  return {
    // Each run has a scratch database of its own: its name is the one difference allowed.
    reviews: postsOf(fixture.posts, 'review').map((review) =>
      `${review.id} v${review.version}: ${review.markdown}`.replaceAll(/\btally_e2e_[0-9a-f]+\b/g, '<database>'),
    ),
    files: postsOf(fixture.posts, 'file').map((file) => file.name),
    text: fixture.transcript(),
  };
}

describe('the demo on PostgreSQL', () => {
  it('reviews the same sections, counts and churn rates as on MariaDB', async () => {
    const postgres = await demoOn('postgres');
    const mariadb = await demoOn('mariadb');
    expect(postgres.reviews).toHaveLength(4);
    expect(postgres.reviews[1]).toMatch(/demographics 5352, services 5734, payments 5634, churn 5684/);
    expect(postgres.reviews[3]).toMatch(/Month-to-month: \d+\.\d%/);
    expect(postgres.reviews).toEqual(mariadb.reviews);
    expect(postgres.text).not.toContain('⚠');
    expect(postgres.files).toContain('report.html');
  }, 300_000);
});
