import { describe, expect, it } from 'vitest';
import { grantFindings } from '../../src/db/grant-findings.js';

const scope = ['telco_db'];

describe('grantFindings', () => {
  it('finds nothing wrong with SELECT on the analysed schema (and the default USAGE line)', () => {
    expect(
      grantFindings(
        [
          "GRANT USAGE ON *.* TO `tally_ro`@`%` IDENTIFIED BY PASSWORD '*AB'",
          'GRANT SELECT, SHOW VIEW ON `telco_db`.* TO `tally_ro`@`%`',
          'GRANT SELECT (`customerID`) ON `telco_db`.`user_churn` TO `tally_ro`@`%`',
        ],
        scope,
      ),
    ).toEqual([]);
  });

  it('names each grant that writes, administers or reads other schemas', () => {
    const grants = [
      'GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION',
      'GRANT SELECT, INSERT ON `telco_db`.* TO `analyst`@`%`',
      'GRANT PROCESS ON *.* TO `analyst`@`%`',
      'GRANT SELECT ON *.* TO `analyst`@`%`',
      'GRANT SELECT ON `Telco_DB`.* TO `analyst`@`%`', // schema names compare without case
      'GRANT SELECT ON `hr`.`salaries` TO `analyst`@`%`',
      'GRANT `analysts` TO `analyst`@`%`', // a role: its own grants are listed on their lines
    ];
    expect(grantFindings(grants, scope)).toEqual([
      { problem: 'writes', grant: grants[0] },
      { problem: 'writes', grant: grants[1] },
      { problem: 'administers', grant: grants[2] },
      { problem: 'reads other schemas', grant: grants[3] },
      { problem: 'reads other schemas', grant: grants[5] },
    ]);
  });

  it('allows the schemas listed with DATABASE_SCHEMAS_<NAME>', () => {
    expect(grantFindings(['GRANT SELECT ON `telco_archive`.* TO `a`@`%`'], [...scope, 'telco_archive'])).toEqual([]);
  });
});
