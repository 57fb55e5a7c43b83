import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// The committed schemas/ must be exactly what the generator produces from the
// pinned @aws-cdk/aws-service-spec: regenerate into a temporary folder and
// compare every file byte for byte.
const { generateSchemas } = require('../../../scripts/generate-schemas.js') as {
  generateSchemas(outDir: string): Promise<{ types: number; bytes: number }>;
};

const committedDir = path.join(__dirname, '..', '..', '..', 'schemas');

describe('schemas/', () => {
  let tmp: string;

  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-schemas-'));
  });

  afterAll(() => {
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('regenerates byte-identically from the pinned service spec', async () => {
    const { types } = await generateSchemas(tmp);
    expect(types).toBeGreaterThan(1000);

    const generated = fs.readdirSync(tmp).sort();
    const committed = fs.readdirSync(committedDir).sort();
    expect(committed).toEqual(generated);

    const differing = generated.filter(
      (f) => !fs.readFileSync(path.join(tmp, f)).equals(fs.readFileSync(path.join(committedDir, f))),
    );
    // On failure: run `npm run generate-schemas` and commit schemas/.
    expect(differing).toEqual([]);
  }, 120_000);

  it('records the spec version it was generated from', () => {
    const index = JSON.parse(fs.readFileSync(path.join(committedDir, 'index.json'), 'utf8')) as {
      specVersion: string;
      types: Record<string, string>;
    };
    const pinned = (require('@aws-cdk/aws-service-spec/package.json') as { version: string }).version;
    expect(index.specVersion).toBe(pinned);
    expect(index.types['AWS::SQS::Queue']).toBe('AWS-SQS-Queue.json');
  });
});
