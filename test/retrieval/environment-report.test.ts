import { describe, expect, it } from 'vitest';
import { findEnvironmentReports, stripEnvironmentReports } from '../../src/text/environment-report.ts';
import { defaultQueries } from '../../localizer/retrieval/query.ts';

const PIP_LIST_ISSUE = `Assertion rewriting shows the wrong line
When a decorator follows the failing assert, the report prints the decorator too.

### pip list
\`\`\`
$ pip list
Package            Version
------------------ -------
attrs              21.2.0
iniconfig          1.1.1
packaging          21.3
pluggy             1.0.0
py                 1.11.0
setuptools         59.4.0
\`\`\`
### versions
pytest 6.2.5 on Windows 10
`;

describe('findEnvironmentReports', () => {
  it('finds a pip list table with its header and ruler, and nothing else', () => {
    const blocks = findEnvironmentReports(PIP_LIST_ISSUE);
    expect(blocks).toEqual([{ startLine: 6, endLine: 13, versionLines: 6 }]);
    const stripped = stripEnvironmentReports(PIP_LIST_ISSUE);
    expect(stripped).not.toMatch(/iniconfig|setuptools|Package\s+Version|-{6}/);
    // prose around it stays, including the one-line version mention
    expect(stripped).toContain('When a decorator follows the failing assert');
    expect(stripped).toContain('$ pip list');
    expect(stripped).toContain('pytest 6.2.5 on Windows 10');
  });

  it('finds pip freeze, show_versions and conda list shapes', () => {
    const freeze = 'nox > pip freeze\nattrs==19.3.0\nmore-itertools==8.0.2\nzipp==0.6.0\nnox > pytest';
    expect(stripEnvironmentReports(freeze)).toBe('nox > pip freeze\nnox > pytest');

    const showVersions = [
      'Versions:',
      'Python deps:',
      '       pip: 19.0.3',
      'setuptools: 40.8.0',
      '    Cython: None',
      '     numpy: 1.16.2',
      '',
      'Thanks!',
    ].join('\n');
    // the section titles above the first version line belong to the report
    expect(stripEnvironmentReports(showVersions)).toBe('\nThanks!');

    const conda = [
      '# Name                    Version                   Build  Channel',
      '_libgcc_mutex             0.1                 conda_forge    conda-forge',
      'alabaster                 0.7.12                   py37_0',
      'diff-match-patch          20181111                   py_0',
      'zstd                      1.4.4                h3b9ef0a_1    conda-forge',
      'end of report',
    ].join('\n');
    // the header goes, and a dotless version inside the table does not end it
    expect(stripEnvironmentReports(conda)).toBe('end of report');
  });

  it('leaves short mentions, data tables and code alone', () => {
    const text = [
      'NumPy 1.13.3',
      'SciPy 0.19.1',
      '',
      'The frame looks like this:',
      '    a    1.0   2.0',
      '    b    3.0   4.0',
      '    c    5.0   6.0',
      'x = np.linspace(0.5, 1.5)',
    ].join('\n');
    // two version lines are prose-sized; the numeric columns make the rest a data table
    expect(findEnvironmentReports(text)).toEqual([]);
    expect(stripEnvironmentReports(text)).toBe(text);
    expect(findEnvironmentReports(text, { minVersionLines: 2 })).toEqual([{ startLine: 0, endLine: 1, versionLines: 2 }]);
  });
});

describe('environment reports on hostile input', () => {
  it('stays linear on very long lines (no regular-expression backtracking blow-up)', () => {
    const text = ['numpy' + ' '.repeat(50_000) + 'x', 'name' + ' \t'.repeat(20_000) + '1.2.3 x', 'pkg 1' + '.a'.repeat(20_000) + ' !'].join('\n');
    const t0 = performance.now();
    expect(stripEnvironmentReports(text)).toBe(text);
    // quadratic matching took ~1.6 s on the first line alone
    expect(performance.now() - t0).toBeLessThan(200);
  });
});

describe('defaultQueries and environment reports', () => {
  it('builds both queries without the report by default, and from the issue as written on request', () => {
    const [raw, structural] = defaultQueries(PIP_LIST_ISSUE);
    expect(raw!.text).not.toContain('iniconfig');
    expect(structural!.signals!.names.map((n) => n.name)).not.toContain('iniconfig');
    const [rawKept] = defaultQueries(PIP_LIST_ISSUE, 'raw', { environmentReports: 'keep' });
    expect(rawKept!.text).toBe(PIP_LIST_ISSUE);
  });
});
