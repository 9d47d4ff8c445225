import { describe, expect, it } from 'vitest';
import { assessCode, assessExtract } from '../../src/agent/risk.js';

describe('assessCode', () => {
  it.each([
    ['%pip install pandas-profiling', 'installs packages (pip install pandas-profiling)'],
    ['!pip install -q pandas-profiling', 'installs packages (pip install -q pandas-profiling)'],
    ['!pip3 install xgboost==2.0', 'installs packages (pip3 install xgboost==2.0)'],
    ['pip install lightgbm', 'installs packages (pip install lightgbm)'],
    ['import os\nos.system("conda install -y statsmodels")', 'installs packages (conda install -y statsmodels)'],
    [
      'import subprocess, sys\nsubprocess.check_call([sys.executable, "-m", "pip", "install", "shap"])',
      'installs packages (pip install shap)',
    ],
    ['!apt-get update && apt-get install -y graphviz', 'installs packages (apt-get update'],
    [
      '%%bash\nconda install -y -c conda-forge prophet\necho done',
      'installs packages (conda install -y -c conda-forge prophet)',
    ],
    [
      'import os\nos.system("wget https://example.com/data.csv")',
      'downloads files (wget https://example.com/data.csv)',
    ],
    [
      'import subprocess\nsubprocess.run(["curl", "-O", "https://x.io/a.zip"])',
      'downloads files (curl -O https://x.io/a.zip)',
    ],
    ['!ls -la /data', 'runs a shell command (ls -la /data)'],
    ['%%bash\nfind / -name "*.csv"', 'runs a shell command (find / -name "*.csv")'],
    ['import os\nos.system(command)', 'runs a shell command (os.system(command))'],
    ['import subprocess\nout = subprocess.check_output(["du", "-sh", "."])', 'runs a shell command (du -sh .)'],
    ["with open('/etc/x', 'w') as f:\n    f.write('hi')", 'writes outside the workspace: /etc/x'],
    ["open('/home/user/log.txt', mode='a').write(text)", 'writes outside the workspace: /home/user/log.txt'],
    ["df.to_csv('/data/export.csv', index=False)", 'writes outside the workspace: /data/export.csv'],
    ["df.to_parquet(path='/srv/share/churn.parquet')", 'writes outside the workspace: /srv/share/churn.parquet'],
    ["plt.savefig('../../etc/chart.png')", 'writes outside the workspace: ../../etc/chart.png'],
    ["np.save('/root/weights.npy', weights)", 'writes outside the workspace: /root/weights.npy'],
    [
      "import shutil\nshutil.copy('result.csv', '/mnt/out/result.csv')",
      'writes outside the workspace: /mnt/out/result.csv',
    ],
    ["import os\nos.remove('/var/lib/data.db')", 'writes outside the workspace: /var/lib/data.db'],
    [
      "from pathlib import Path\nPath('/opt/notes.md').write_text(summary)",
      'writes outside the workspace: /opt/notes.md',
    ],
    ["df.to_excel('/workspace/../etc/out.xlsx')", 'writes outside the workspace: /workspace/../etc/out.xlsx'],
    ["df.to_json('~/out.json')", 'writes outside the workspace: ~/out.json'],
    ['%%writefile /etc/cron.d/job\n* * * * * echo hi', 'writes outside the workspace: /etc/cron.d/job'],
    ['import time\ntime.sleep(120)', 'may run long: time.sleep(120)'],
    ['import time\ntime.sleep(5 * 60)', 'may run long: time.sleep(5 * 60)'],
    [
      'search = GridSearchCV(RandomForestClassifier(), {"max_depth": [3, 5, 8]}, cv=5)\nsearch.fit(X, y)',
      'may run long: GridSearchCV',
    ],
    ['RandomizedSearchCV(model, grid, n_iter=50).fit(X, y)', 'may run long: RandomizedSearchCV'],
    ['model = RandomForestClassifier(n_estimators=5000)', 'may run long: n_estimators=5000'],
    ['total = 0\nfor i in range(10**8):\n    total += i', 'may run long: range(10**8)'],
    ['for i in range(0, 20_000_000):\n    pass', 'may run long: range(0, 20_000_000)'],
    ['while True:\n    poll()', 'may run long: while True'],
    ['scores = cross_val_score(model, X, y, cv=20)', 'may run long: cross_val_score with cv=20'],
  ])('flags %j', (code, reason) => {
    expect(assessCode(code)).toContain(reason);
  });

  it.each([
    [
      'pandas analysis',
      [
        'import pandas as pd',
        "df = pay.merge(churn, on='customerID')",
        "rates = df.groupby('Contract').Churn.apply(lambda s: (s == 'Yes').mean())",
        'print(rates.round(3).to_string())',
      ].join('\n'),
    ],
    [
      'a matplotlib chart saved in the workspace',
      "import matplotlib.pyplot as plt\nax = rates.plot.bar(title='Churn by contract')\nplt.savefig('chart.png')",
    ],
    ['a relative CSV export', "df.to_csv('out.csv', index=False)"],
    ['a write into /workspace', "with open('/workspace/x.txt', 'w') as f:\n    f.write('ok')"],
    ['a write into a workspace subfolder', "df.to_parquet('/workspace/exports/churn.parquet')"],
    ['scratch space', "np.save('/tmp/scratch.npy', values)"],
    ['reading a system file', "with open('/etc/hosts') as f:\n    hosts = f.read()"],
    ['reading in binary mode', "data = open('/etc/ssl/cert.pem', 'rb').read()"],
    ['a path in a comment', "# df.to_csv('/etc/passwd')\n# os.system('pip install x')\ndf.head()"],
    ['a path in a string that is only printed', "print(\"do not run open('/etc/x', 'w') or pip install\")"],
    [
      'a docstring that mentions a grid search',
      'def fit():\n    """Unlike GridSearchCV(...), this is quick."""\n    return model.fit(X, y)',
    ],
    ['a short sleep', 'import time\ntime.sleep(2)'],
    ['a modest forest', 'RandomForestClassifier(n_estimators=300, random_state=0).fit(X, y)'],
    ['an ordinary loop', 'for k in range(2, 9):\n    scores[k] = silhouette(k)'],
    ['five-fold cross-validation', 'cross_val_score(model, X, y, cv=5, scoring="roc_auc")'],
    ['a comparison, not a shell escape', 'mask = df.tenure != 0'],
    ['a variable named like a tool', 'pip = 3\nconda_env = "base"'],
    ['a while loop with a condition', 'while remaining > 0:\n    remaining -= 1'],
  ])('lets %s run', (_name, code) => {
    expect(assessCode(code)).toBeUndefined();
  });

  it('names several reasons at once', () => {
    const reason = assessCode("!pip install shap\ndf.to_csv('/data/out.csv')\ntime.sleep(600)");
    expect(reason).toBe(
      'installs packages (pip install shap); writes outside the workspace: /data/out.csv; may run long: time.sleep(600)',
    );
  });

  it('shortens long commands', () => {
    const reason = assessCode(`!pip install ${'package '.repeat(20)}`) ?? '';
    expect(reason.length).toBeLessThan(90);
    expect(reason).toMatch(/^installs packages \(pip install package .*…\)$/);
  });
});

describe('assessExtract', () => {
  it('flags an extraction above the budget', () => {
    expect(assessExtract(2_500_000, 1_000_000)).toBe('loads about 2,500,000 rows (budget 1,000,000)');
  });

  it.each([
    [999_999, 1_000_000],
    [1_000_000, 1_000_000],
    [undefined, 1_000_000],
  ])('lets %s rows run with a budget of %s', (rows, budget) => {
    expect(assessExtract(rows, budget)).toBeUndefined();
  });
});
