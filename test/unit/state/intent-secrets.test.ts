import { restoreMaskedLeaves } from '../../../src/state/intent-secrets';
import { redactWalRecord } from '../../../src/state/redact-state';
import type { IntentRecord } from '../../../src/state/types';
import { SECRET_MASK, clearSecrets, registerSecret } from '../../../src/template/redaction';

describe('secrets in a write-ahead intent', () => {
  afterEach(() => clearSecrets());

  const intent = (properties: Record<string, unknown>): IntentRecord => ({
    id: 'l:1.0',
    operation: 'create',
    logicalId: 'Param',
    resourceType: 'AWS::SSM::Parameter',
    provisionedBy: 'sdk',
    token: 't',
    properties,
    at: 1,
  });
  /** The intent as a killed run left it in the log (stored masked, then read back). */
  const logged = (i: IntentRecord): IntentRecord => {
    const stored = redactWalRecord({ t: 'intent', intent: i });
    return (JSON.parse(JSON.stringify(stored)) as { intent: IntentRecord }).intent;
  };

  it('stores a masked leaf with a digest of its value, never the value', () => {
    registerSecret('noecho-Pa55word');
    const out = logged(
      intent({ Value: 'noecho-Pa55word', Description: 'at noecho-Pa55word:{{resolve:secretsmanager:s}}' }),
    );
    expect(out.properties).toEqual({
      Value: SECRET_MASK,
      Description: `at ${SECRET_MASK}:{{resolve:secretsmanager:s}}`,
    });
    expect(Object.keys(out.maskedDigests!).sort()).toEqual(['/Description', '/Value']);
    expect(JSON.stringify(out)).not.toContain('noecho-Pa55word');
  });

  it('restores each masked leaf from the secrets of the settling run, proven by its digest', () => {
    registerSecret('noecho-Pa55word');
    const out = logged(
      intent({
        Value: 'noecho-Pa55word',
        Tags: [{ Key: 'a/b', Value: 'x-noecho-Pa55word' }],
        Plain: 'a***b',
      }),
    );
    // The settling run: a different process, holding the same NoEcho value and an unrelated secret.
    clearSecrets();
    registerSecret('another-secret');
    registerSecret('noecho-Pa55word');
    const restored = restoreMaskedLeaves(out.properties!, out.maskedDigests);
    expect(restored).toEqual({
      ok: true,
      properties: {
        Value: 'noecho-Pa55word',
        Tags: [{ Key: 'a/b', Value: 'x-noecho-Pa55word' }],
        Plain: 'a***b',
      },
    });
  });

  it('leaves a leaf no secret of the run matches unrestored, naming it', () => {
    registerSecret('noecho-Pa55word');
    const out = logged(intent({ Value: 'noecho-Pa55word', Other: 'plain' }));
    clearSecrets();
    registerSecret('noecho-changed');
    expect(restoreMaskedLeaves(out.properties!, out.maskedDigests)).toEqual({
      ok: false,
      unrestored: ['/Value'],
    });
  });

  it('refuses the bare mask of an intent written without digests', () => {
    registerSecret('noecho-Pa55word');
    expect(restoreMaskedLeaves({ Value: SECRET_MASK }, undefined)).toEqual({
      ok: false,
      unrestored: ['/Value'],
    });
  });

  it('keeps the digests when an already masked intent is stored again', () => {
    registerSecret('noecho-Pa55word');
    const once = logged(intent({ Value: 'noecho-Pa55word' }));
    const twice = logged(once);
    expect(twice.maskedDigests).toEqual(once.maskedDigests);
  });
});
