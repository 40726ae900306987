/**
 * The test-log parsers of every harness language (src/languages/<language>/log-parsers.ts). The harness' own parser tests
 * (SWE-bench tests/test_log_parsers_java.py and _javascript.py) are carried over as facts; the other formats
 * are checked on excerpts in each tool's output format, carrying test names of the SWE-bench Multilingual
 * development rows (their FAIL_TO_PASS / PASS_TO_PASS), so a parser that names a test differently than the
 * dataset would fail here.
 */
import { describe, expect, it } from 'vitest';
import { parseLogDoctest, parseLogGoogletest, parseLogJq, parseLogMicropythonTest, parseLogRedis } from '../../src/languages/c/log-parsers.ts';
import { parseLogGotest } from '../../src/languages/go/log-parsers.ts';
import { parseLogAnt, parseLogGradleCustom, parseLogMaven } from '../../src/languages/java/log-parsers.ts';
import { parseLogImmutableJs, parseLogJest, parseLogJestJson, parseLogKarma, parseLogTap, parseLogVitest } from '../../src/languages/javascript/log-parsers.ts';
import { parseLogPhpunit } from '../../src/languages/php/log-parsers.ts';
import { parseLogCucumber, parseLogMinitest, parseLogRspecTransformedJson, parseLogRubyUnit } from '../../src/languages/ruby/log-parsers.ts';
import { parseLogCargo } from '../../src/languages/rust/log-parsers.ts';

const P = 'PASSED';
const F = 'FAILED';
const S = 'SKIPPED';

describe('the harness’ own parser tests (SWE-bench tests/test_log_parsers_*.py)', () => {
  it('gradle_custom: pass and fail, noise ignored, a name split from its status by other output', () => {
    expect(parseLogGradleCustom('com.example.Test > testOne PASSED\ncom.example.Test > testTwo FAILED\n')).toEqual({
      'com.example.Test > testOne': P,
      'com.example.Test > testTwo': F,
    });
    expect(parseLogGradleCustom('> Task :test\nWARNING: Some warning\ncom.example.Test > testMethod PASSED\nBUILD SUCCESSFUL\n')).toEqual({
      'com.example.Test > testMethod': P,
    });
    const interleaved =
      'com.example.Test > testOne PASSED\ncom.example.Test > testTwo\nWARNING: interleaved output\nPASSED\ncom.example.Test > testThree\nFAILED\n';
    expect(parseLogGradleCustom(interleaved)).toEqual({ 'com.example.Test > testOne': P, 'com.example.Test > testTwo': P, 'com.example.Test > testThree': F });
  });

  it('maven: sequential, interleaved commands, and a result after the end marker', () => {
    expect(
      parseLogMaven(
        '+ mvnd test -B -Dtest=com.example.Test#testOne\n[INFO] BUILD SUCCESS\n+ mvnd test -B -Dtest=com.example.Test#testTwo\n[INFO] BUILD FAILURE\n',
      ),
    ).toEqual({
      'com.example.Test#testOne': P,
      'com.example.Test#testTwo': F,
    });
    const interleaved =
      '+ mvnd test -B -Dtest=com.example.Test#testOne\n+ mvnd test -B -Dtest=com.example.Test#testTwo\n[INFO] BUILD SUCCESS\n[INFO] BUILD SUCCESS\n+ mvnd test -B -Dtest=com.example.Test#testThree\n[INFO] BUILD FAILURE\n';
    expect(parseLogMaven(interleaved)).toEqual({ 'com.example.Test#testOne': P, 'com.example.Test#testTwo': P, 'com.example.Test#testThree': F });
    const delayed =
      "+ mvnd test -B -Dtest=com.example.Test#testOne\n[INFO] BUILD SUCCESS\n+ mvnd test -B -Dtest=com.example.Test#testTwo\n+ : '>>>>> End Test Output'\n+ git checkout somefile.java\n[INFO] BUILD SUCCESS\n";
    expect(parseLogMaven(delayed)).toEqual({ 'com.example.Test#testOne': P, 'com.example.Test#testTwo': P });
  });

  it('jest: pass, fail, skip; the same name with and without a duration; nesting stripped', () => {
    expect(parseLogJest('✓ adds two numbers (2 ms)\n✕ subtracts two numbers\n○ skipped test\n')).toEqual({
      'adds two numbers': P,
      'subtracts two numbers': F,
      'skipped test': S,
    });
    expect(Object.keys(parseLogJest('✓ builds the correct query (105 ms)'))).toEqual(Object.keys(parseLogJest('✓ builds the correct query')));
    expect(parseLogJest('    ✓ works when nested (3 ms)')).toEqual({ 'works when nested': P });
  });
});

describe('each format, with the development rows’ test names', () => {
  it('jq (make check, automake’s test driver)', () => {
    const log = 'PASS: test_utf8\nPASS: test_syntax\nFAIL: tests/shtest\n# TOTAL: 3\n';
    expect(parseLogJq(log)).toEqual({ test_utf8: P, test_syntax: P, 'tests/shtest': F });
  });

  it('go test -v, subtests indented', () => {
    const log = [
      '=== RUN   TestCreateDefaultRouter',
      '--- PASS: TestCreateDefaultRouter (0.00s)',
      '=== RUN   TestMiddlewareCalledOnceByRouterStaticFSNotFound',
      '--- FAIL: TestMiddlewareCalledOnceByRouterStaticFSNotFound (0.01s)',
      '    --- SKIP: TestRouterGroupBasic/sub (0.00s)',
      'FAIL\tgithub.com/gin-gonic/gin\t0.123s',
    ].join('\n');
    expect(parseLogGotest(log)).toEqual({
      TestCreateDefaultRouter: P,
      TestMiddlewareCalledOnceByRouterStaticFSNotFound: F,
      'TestRouterGroupBasic/sub': S,
    });
  });

  it('cargo test', () => {
    const log =
      'running 3 tests\ntest routing::tests::wildcard_with_trailing_slash ... FAILED\ntest routing::strip_prefix::tests::multi_segment_trailing_slash ... ok\ntest routing::tests::ignored_one ... ignored\n';
    expect(parseLogCargo(log)).toEqual({ 'routing::tests::wildcard_with_trailing_slash': F, 'routing::strip_prefix::tests::multi_segment_trailing_slash': P });
  });

  it('phpunit --testdox', () => {
    const log = 'PHPUnit 9.6.0\n\nRound (Tests\\Carbon\\Round)\n ✔ Round with default unit\n ✘ Floor year\n   │ Failed asserting\n ↩ Round with strings\n';
    expect(parseLogPhpunit(log)).toEqual({ 'Round > Round with default unit': P, 'Round > Floor year': F, 'Round > Round with strings': S });
  });

  it('test-unit (fluentd), minitest, cucumber and rspec results', () => {
    const unit = 'Loaded suite tests\n  test_ENOENT_error_after_setup_watcher:\t\t\tF\n  test: emits records:\t.\n  test_ommitted: O\n';
    expect(parseLogRubyUnit(unit)).toEqual({ test_ENOENT_error_after_setup_watcher: F, 'emits records': P, test_ommitted: S });
    expect(parseLogMinitest('TestSite#test_build. = 0.01 s = .\nTestSite#test_read. = 0.02 s = F\n')).toEqual({
      'TestSite#test_build': P,
      'TestSite#test_read': F,
    });
    expect(parseLogCucumber('Building a site .....\n')).toEqual({ 'Building a site': P });
    expect(parseLogRspecTransformedJson('Fastlane works - passed\nFastlane breaks - failed\n')).toEqual({ 'Fastlane works': P, 'Fastlane breaks': F });
  });

  it('karma (preact): suites by indentation, from "Starting browser" to "SUMMARY:"', () => {
    const log = [
      'some build output ✔ not a test',
      'Starting browser ChromeHeadless',
      '  render()',
      '    ✔ should rerender when value from "" to 0',
      '    ✖ should set progress value to 0',
      '    nested',
      '      ✔ works',
      '  other',
      '    ✔ after',
      'SUMMARY:',
      '✔ 3 tests completed',
    ].join('\n');
    expect(parseLogKarma(log)).toEqual({
      'render() > should rerender when value from "" to 0': P,
      'render() > should set progress value to 0': F,
      'render() > nested > works': P,
      // the harness' quirk, kept (its own output on this log): a shallower suite line only pops, so `other` is lost
      'render() > after': P,
    });
  });

  it('jest --json through the harness’ transform, vitest, TAP, immutable-js by instance', () => {
    expect(parseLogJestJson('[PASSED] es2015/yield/yield following arrow in params\n[FAILED] comments/basic/arrow function\n')).toEqual({
      'es2015/yield/yield following arrow in params': P,
      'comments/basic/arrow function': F,
    });
    expect(parseLogVitest(' ✓ packages/a.spec.ts > works 3ms\n × packages/b.spec.ts > breaks 12ms\n ↓ packages/c.spec.ts > later [skipped]\n')).toEqual({
      'packages/a.spec.ts > works': P,
      'packages/b.spec.ts > breaks': F,
      'packages/c.spec.ts > later': S,
    });
    expect(parseLogTap('TAP version 13\nok 1 renders\nnot ok 2 breaks\n')).toEqual({ renders: P, breaks: F });
    expect(parseLogImmutableJs('[PASSED] Map > get', { instanceId: 'immutable-js__immutable-js-2005' })).toEqual({ 'Map > get': P });
    expect(() => parseLogImmutableJs('', { instanceId: 'immutable-js__immutable-js-1' })).toThrow(/unknown instance id/);
  });

  it('redis, doctest’s XML, micropython, googletest, ant', () => {
    expect(parseLogRedis('[ok]: SET and GET (2 ms)\n[err]: Expire works in tests/unit/expire.tcl\n[skip]: slow one\n')).toEqual({
      'SET and GET': P,
      'Expire works': F,
      'slow one': S,
    });
    const xml =
      'noise\n<doctest binary="tests"><TestSuite><TestCase name="json &amp; co"><SubCase name="parse"><Expression success="true"/></SubCase><SubCase name="dump"><Expression success="true"/><Expression success="false"/></SubCase></TestCase></TestSuite></doctest>\n';
    expect(parseLogDoctest(xml)).toEqual({ 'json & co > parse': P, 'json & co > dump': F });
    expect(parseLogMicropythonTest('pass  basics/int.py\nFAIL  basics/list.py\nskip  extmod/re.py\n')).toEqual({
      'basics/int.py': P,
      'basics/list.py': F,
      'extmod/re.py': S,
    });
    expect(parseLogGoogletest('[       OK ] FormatTest.Basic (0 ms)\n[  FAILED  ] FormatTest.Wide (1 ms)\n')).toEqual({
      'FormatTest.Basic': P,
      'FormatTest.Wide': F,
    });
    expect(parseLogAnt('    [junit] [PASS] TestA\n    [junit] [ERR] TestB\n')).toEqual({ TestA: P, TestB: F });
  });
});
