/** The Cloud Control timings cache: per endpoint, merged, and harmless when damaged. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pollHistoryPath, readPollHistory, writePollHistory } from '../../../src/provisioning/poll-history';

describe('poll history', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-poll-history-'));
    file = pollHistoryPath(path.join(dir, 'cache'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('knows nothing without a file, and nothing from a damaged one', () => {
    expect(readPollHistory(file, 'aws')).toEqual({});
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '{ not json');
    expect(readPollHistory(file, 'aws')).toEqual({});
  });

  it('keeps each endpoint apart and merges a run into what earlier runs recorded', () => {
    writePollHistory(file, 'aws', { 'AWS::SNS::Topic|CREATE': [{ hi: 2000 }] });
    writePollHistory(file, 'http://127.0.0.1:4566', { 'AWS::SNS::Topic|CREATE': [{ hi: 5 }] });
    writePollHistory(file, 'aws', { 'AWS::SNS::Topic|DELETE': [{ lo: 900, hi: 1000 }] });
    expect(readPollHistory(file, 'aws')).toEqual({
      'AWS::SNS::Topic|CREATE': [{ hi: 2000 }],
      'AWS::SNS::Topic|DELETE': [{ lo: 900, hi: 1000 }],
    });
    expect(readPollHistory(file, 'http://127.0.0.1:4566')).toEqual({ 'AWS::SNS::Topic|CREATE': [{ hi: 5 }] });
    expect(fs.readdirSync(path.dirname(file))).toEqual([path.basename(file)]); // no temporary file left
  });

  it('forgets the least recently used endpoints beyond sixteen', () => {
    for (let i = 0; i < 20; i++)
      writePollHistory(file, `http://127.0.0.1:${4000 + i}`, { 'T|CREATE': [{ hi: i }] }, i);
    expect(readPollHistory(file, 'http://127.0.0.1:4000')).toEqual({});
    expect(readPollHistory(file, 'http://127.0.0.1:4019')).toEqual({ 'T|CREATE': [{ hi: 19 }] });
  });
});
