/** Python: pytest, Django's and sympy's runners; the harness' Python eval script. */
import { fileBeside, type LanguageFolder } from '../language-folder.ts';
import { parseLogDjango, parseLogMatplotlib, parseLogPytest, parseLogPytestOptions, parseLogPytestV2, parseLogSeaborn, parseLogSympy } from './log-parsers.ts';
import { python } from './python.ts';

export const pythonFolder = {
  name: 'python',
  languages: [python],
  evaluation: {
    harnessKey: 'py',
    logParsers: {
      pytest: parseLogPytest,
      pytest_options: parseLogPytestOptions,
      pytest_v2: parseLogPytestV2,
      django: parseLogDjango,
      sympy: parseLogSympy,
      matplotlib: parseLogMatplotlib,
      seaborn: parseLogSeaborn,
      // 5.0's per-repository names (log_parsers/python.py aliases), as 5.0 datasets' `log_parser` field gives them
      astroid: parseLogPytest,
      flask: parseLogPytest,
      marshmallow: parseLogPytest,
      pvlib: parseLogPytest,
      pyvista: parseLogPytest,
      sqlfluff: parseLogPytest,
      xarray: parseLogPytest,
      pydicom: parseLogPytestOptions,
      requests: parseLogPytestOptions,
      pylint: parseLogPytestOptions,
      astropy: parseLogPytestV2,
      scikit: parseLogPytestV2,
      sphinx: parseLogPytestV2,
    },
    // pytest's runners, which can also write a JUnit XML report (validation/structured-report.ts)
    junitReportParsers: [
      'pytest',
      'pytest_options',
      'pytest_v2',
      'matplotlib',
      'seaborn',
      'astroid',
      'flask',
      'marshmallow',
      'pvlib',
      'pyvista',
      'sqlfluff',
      'xarray',
      'pydicom',
      'requests',
      'pylint',
      'astropy',
      'scikit',
      'sphinx',
    ],
    evalScript: 'python',
    specFile: fileBeside(import.meta.url, 'specs.json'),
  },
} as const satisfies LanguageFolder;
