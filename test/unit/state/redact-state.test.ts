import { holdsSecretInClear, redactStackState, redactWalRecord } from '../../../src/state/redact-state';
import { serializeStackState } from '../../../src/state/schema';
import type { StackState } from '../../../src/state/types';
import { SECRET_MASK, clearSecrets, registerSecret } from '../../../src/template/redaction';

describe('state redaction', () => {
  afterEach(() => clearSecrets());

  const state = (): StackState => ({
    version: 9,
    stackName: 'S',
    region: 'us-east-1',
    lastModified: 1,
    resources: {
      Key: {
        physicalId: 'AKIAEXAMPLE',
        resourceType: 'AWS::IAM::AccessKey',
        properties: { UserName: 'u' },
        attributes: { SecretAccessKey: 'minted-secret-key' },
      },
      Param: { physicalId: 'p', resourceType: 'AWS::SSM::Parameter', properties: { Value: 'noecho-secret' } },
    },
    outputs: { Echoed: 'noecho-secret' },
    deposed: [
      {
        physicalId: 'old',
        resourceType: 'AWS::SSM::Parameter',
        properties: { Value: 'pre-noecho-secret' },
        logicalId: 'Param',
        key: 'Param~1',
        reason: 'replaced',
        deposedAt: 1,
      },
    ],
  });

  it('writes no secret into state.json, ids and keys untouched', () => {
    registerSecret('noecho-secret');
    registerSecret('minted-secret-key', 'minted');
    const body = serializeStackState(state());
    expect(body).not.toContain('noecho-secret');
    expect(body).not.toContain('minted-secret-key');
    const stored = JSON.parse(body) as StackState;
    expect(stored.resources.Key).toMatchObject({
      physicalId: 'AKIAEXAMPLE',
      attributes: { SecretAccessKey: SECRET_MASK },
    });
    expect(stored.outputs.Echoed).toBe(SECRET_MASK);
    expect(stored.deposed![0].properties.Value).toBe(`pre-${SECRET_MASK}`);
  });

  it('leaves the state untouched when no secret is known', () => {
    const s = state();
    expect(redactStackState(s)).toBe(s);
    expect(holdsSecretInClear(s)).toBe(false);
  });

  it('tells a record holding a secret in clear from one already masked', () => {
    registerSecret('noecho-secret');
    expect(holdsSecretInClear(state())).toBe(true);
    expect(holdsSecretInClear(JSON.parse(serializeStackState(state())) as StackState)).toBe(false);
  });

  it('masks intents, outcomes and failure messages of the write-ahead log', () => {
    registerSecret('noecho-secret');
    const intent = redactWalRecord({
      t: 'intent',
      intent: {
        id: 'l:1.0',
        operation: 'update',
        logicalId: 'Param',
        resourceType: 'AWS::SSM::Parameter',
        provisionedBy: 'cc-api',
        token: 't',
        properties: { Value: 'noecho-secret' },
        previousProperties: { Value: 'noecho-secret' },
        at: 1,
      },
    });
    const outcome = redactWalRecord({
      t: 'outcome',
      id: 'l:1.0',
      failed: { message: 'Value noecho-secret is invalid' },
      effects: [{ op: 'set', logicalId: 'Param', record: state().resources.Param }],
    });
    expect(JSON.stringify([intent, outcome])).not.toContain('noecho-secret');
    expect(JSON.stringify(outcome)).toContain(`Value ${SECRET_MASK} is invalid`);
  });
});
