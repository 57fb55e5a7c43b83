import { assertRegionName, assertStackName, stackNameProblem } from '../../../src/config/aws-names';

describe('AWS naming rules', () => {
  it('accepts region names of every partition and refuses anything else with the rule', () => {
    for (const r of [
      'us-east-1',
      'eu-central-2',
      'us-gov-west-1',
      'cn-north-1',
      'us-isob-east-1',
      'eusc-de-east-1',
    ])
      expect(() => assertRegionName(r, 'test')).not.toThrow();
    for (const r of ['us east 1', 'US-EAST-1', 'useast1', 'us-east', '', 'ü-east-1', 'us-east-1a']) {
      let caught: { code?: string; message?: string } | undefined;
      try {
        assertRegionName(r, 'from --region');
      } catch (err) {
        caught = err as { code?: string; message?: string };
      }
      expect(caught?.code).toBe('INVALID_REGION');
      expect(caught?.message).toContain('from --region');
      expect(caught?.message).toContain('such as us-east-1');
    }
  });

  it('refuses stack names CloudFormation rejects, saying which rule', () => {
    expect(stackNameProblem('My-Stack-2')).toBeUndefined();
    expect(stackNameProblem('my stack')).toBe('it contains " "');
    expect(stackNameProblem('Stäck')).toBe('it contains "ä"');
    expect(stackNameProblem('2fast')).toBe('it does not start with a letter');
    expect(stackNameProblem('a'.repeat(129))).toBe('it is 129 characters long (at most 128)');
    expect(stackNameProblem('a_b')).toBe('it contains "_"');
    expect(() => assertStackName('my stack', 'stack X of the app')).toThrow(
      /Invalid stack name "my stack" \(stack X of the app\): it contains " "\. A stack name has only letters, digits and hyphens/,
    );
  });
});
