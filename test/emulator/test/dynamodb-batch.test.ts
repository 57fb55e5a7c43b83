/**
 * DynamoDB's batch and transactional calls through the real SDK:
 * BatchWriteItem / BatchGetItem (and their UnprocessedItems / UnprocessedKeys
 * when the emulator is told to leave requests over), TransactWriteItems
 * (ConditionCheck, Put, Update, Delete; all or nothing with
 * CancellationReasons; ClientRequestToken idempotency) and TransactGetItems,
 * with DynamoDB's validation errors; ExecuteStatement for simple PartiQL
 * SELECT / INSERT / UPDATE / DELETE.
 */
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  CreateTableCommand,
  DynamoDBClient,
  ExecuteStatementCommand,
  type ExecuteStatementInput,
  GetItemCommand,
  TransactGetItemsCommand,
  TransactWriteItemsCommand,
  TransactionCanceledException,
  type DynamoDBServiceException,
} from '@aws-sdk/client-dynamodb';
import { clientConfig, useEmulator } from './helpers';

const ctx = useEmulator();
let ddb: DynamoDBClient;
const key = (id: string) => ({ id: { S: id } });

beforeAll(() => {
  ddb = new DynamoDBClient({ ...clientConfig(ctx.emulator), maxAttempts: 1 });
});
afterAll(() => ddb.destroy());
beforeEach(async () => {
  await ctx.emulator.control.reset();
  for (const TableName of ['accounts', 'audit'])
    await ddb.send(
      new CreateTableCommand({
        TableName,
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
});

async function failure(promise: Promise<unknown>): Promise<DynamoDBServiceException> {
  try {
    await promise;
  } catch (err) {
    return err as DynamoDBServiceException;
  }
  throw new Error('expected the call to fail');
}

const get = async (TableName: string, id: string) =>
  (await ddb.send(new GetItemCommand({ TableName, Key: key(id) }))).Item;

const balance = (id: string, n: number) => ({ id: { S: id }, balance: { N: String(n) } });

describe('BatchWriteItem and BatchGetItem', () => {
  it('puts and deletes across tables, reads them back, and answers the documented errors', async () => {
    const written = await ddb.send(
      new BatchWriteItemCommand({
        RequestItems: {
          accounts: [{ PutRequest: { Item: balance('a', 1) } }, { PutRequest: { Item: balance('b', 2) } }],
          audit: [{ PutRequest: { Item: { id: { S: 'log1' } } } }],
        },
      }),
    );
    expect(written.UnprocessedItems).toEqual({});
    await ddb.send(
      new BatchWriteItemCommand({ RequestItems: { accounts: [{ DeleteRequest: { Key: key('b') } }] } }),
    );
    const read = await ddb.send(
      new BatchGetItemCommand({
        RequestItems: {
          accounts: { Keys: [key('a'), key('b')], ProjectionExpression: 'balance' },
          audit: { Keys: [key('log1')] },
        },
      }),
    );
    expect(read.Responses).toEqual({ accounts: [{ balance: { N: '1' } }], audit: [{ id: { S: 'log1' } }] });
    expect(read.UnprocessedKeys).toEqual({});

    const code = async (p: Promise<unknown>) => (await failure(p)).name;
    expect(
      await code(
        ddb.send(
          new BatchWriteItemCommand({
            RequestItems: {
              accounts: [{ PutRequest: { Item: balance('x', 1) } }, { DeleteRequest: { Key: key('x') } }],
            },
          }),
        ),
      ),
    ).toBe('ValidationException');
    expect(
      await code(
        ddb.send(
          new BatchWriteItemCommand({
            RequestItems: {
              accounts: Array.from({ length: 26 }, (_, i) => ({ PutRequest: { Item: balance(`k${i}`, i) } })),
            },
          }),
        ),
      ),
    ).toBe('ValidationException');
    expect(await get('accounts', 'k0')).toBeUndefined();
    expect(
      await code(
        ddb.send(
          new BatchWriteItemCommand({ RequestItems: { nope: [{ DeleteRequest: { Key: key('x') } }] } }),
        ),
      ),
    ).toBe('ResourceNotFoundException');
    expect(
      await code(
        ddb.send(
          new BatchGetItemCommand({
            RequestItems: { accounts: { Keys: Array.from({ length: 101 }, (_, i) => key(`k${i}`)) } },
          }),
        ),
      ),
    ).toBe('ValidationException');
    expect(
      await code(
        ddb.send(new BatchGetItemCommand({ RequestItems: { accounts: { Keys: [key('a'), key('a')] } } })),
      ),
    ).toBe('ValidationException');
  });

  it('leaves the last requests unprocessed when told to, in the request’s own shape', async () => {
    await ctx.emulator.control.updateSettings({ dynamodbBatchUnprocessed: 1 });
    const written = await ddb.send(
      new BatchWriteItemCommand({
        RequestItems: {
          accounts: [{ PutRequest: { Item: balance('a', 1) } }, { PutRequest: { Item: balance('b', 2) } }],
        },
      }),
    );
    expect(written.UnprocessedItems).toEqual({ accounts: [{ PutRequest: { Item: balance('b', 2) } }] });
    expect(await get('accounts', 'b')).toBeUndefined();
    const read = await ddb.send(
      new BatchGetItemCommand({
        RequestItems: { accounts: { Keys: [key('a'), key('b')], ConsistentRead: true } },
      }),
    );
    expect(read.Responses).toEqual({ accounts: [balance('a', 1)] });
    expect(read.UnprocessedKeys).toEqual({ accounts: { Keys: [key('b')], ConsistentRead: true } });
    // A retry of what was left is processed once the emulator stops leaving requests over.
    await ctx.emulator.control.updateSettings({ dynamodbBatchUnprocessed: 0 });
    await ddb.send(new BatchWriteItemCommand({ RequestItems: written.UnprocessedItems! }));
    expect(await get('accounts', 'b')).toEqual(balance('b', 2));
  });
});

describe('TransactWriteItems and TransactGetItems', () => {
  it('applies a ConditionCheck, Put, Update and Delete together', async () => {
    await ddb.send(
      new BatchWriteItemCommand({
        RequestItems: {
          accounts: [{ PutRequest: { Item: balance('a', 100) } }, { PutRequest: { Item: balance('b', 5) } }],
          audit: [{ PutRequest: { Item: { id: { S: 'old' } } } }],
        },
      }),
    );
    await ddb.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          {
            ConditionCheck: {
              TableName: 'accounts',
              Key: key('b'),
              ConditionExpression: 'attribute_exists(id)',
            },
          },
          {
            Update: {
              TableName: 'accounts',
              Key: key('a'),
              UpdateExpression: 'SET balance = balance - :n',
              ConditionExpression: 'balance >= :n',
              ExpressionAttributeValues: { ':n': { N: '30' } },
            },
          },
          { Put: { TableName: 'audit', Item: { id: { S: 'tx1' }, amount: { N: '30' } } } },
          { Delete: { TableName: 'audit', Key: key('old') } },
        ],
      }),
    );
    const read = await ddb.send(
      new TransactGetItemsCommand({
        TransactItems: [
          { Get: { TableName: 'accounts', Key: key('a') } },
          { Get: { TableName: 'audit', Key: key('tx1'), ProjectionExpression: 'amount' } },
          { Get: { TableName: 'audit', Key: key('old') } },
        ],
      }),
    );
    expect(read.Responses).toEqual([{ Item: balance('a', 70) }, { Item: { amount: { N: '30' } } }, {}]);
  });

  it('cancels the whole transaction with one reason per action and changes nothing', async () => {
    await ddb.send(
      new BatchWriteItemCommand({ RequestItems: { accounts: [{ PutRequest: { Item: balance('a', 10) } }] } }),
    );
    const err = await failure(
      ddb.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Put: { TableName: 'audit', Item: { id: { S: 'tx2' } } } },
            {
              Update: {
                TableName: 'accounts',
                Key: key('a'),
                UpdateExpression: 'SET balance = balance - :n',
                ConditionExpression: 'balance >= :n',
                ExpressionAttributeValues: { ':n': { N: '30' } },
                ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
              },
            },
          ],
        }),
      ),
    );
    expect(err).toBeInstanceOf(TransactionCanceledException);
    expect(err.message).toBe(
      'Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed]',
    );
    expect((err as TransactionCanceledException).CancellationReasons).toEqual([
      { Code: 'None' },
      { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed', Item: balance('a', 10) },
    ]);
    expect(await get('audit', 'tx2')).toBeUndefined();
    expect(await get('accounts', 'a')).toEqual(balance('a', 10));
  });

  it('is idempotent per ClientRequestToken and refuses the token for another request', async () => {
    const transfer = (n: number) =>
      new TransactWriteItemsCommand({
        ClientRequestToken: 'transfer-1',
        TransactItems: [
          {
            Update: {
              TableName: 'accounts',
              Key: key('a'),
              UpdateExpression: 'ADD balance :n',
              ExpressionAttributeValues: { ':n': { N: String(n) } },
            },
          },
        ],
      });
    await ddb.send(transfer(5));
    await ddb.send(transfer(5));
    expect(await get('accounts', 'a')).toEqual(balance('a', 5));
    expect((await failure(ddb.send(transfer(6)))).name).toBe('IdempotentParameterMismatchException');
  });

  it('answers the documented validation errors', async () => {
    const code = async (p: Promise<unknown>) => (await failure(p)).name;
    expect(
      await code(
        ddb.send(
          new TransactWriteItemsCommand({
            TransactItems: [
              { Put: { TableName: 'accounts', Item: balance('a', 1) } },
              { Delete: { TableName: 'accounts', Key: key('a') } },
            ],
          }),
        ),
      ),
    ).toBe('ValidationException');
    expect(await code(ddb.send(new TransactWriteItemsCommand({ TransactItems: [] })))).toBe(
      'ValidationException',
    );
    expect(
      await code(
        ddb.send(
          new TransactWriteItemsCommand({
            TransactItems: [{ Delete: { TableName: 'nope', Key: key('a') } }],
          }),
        ),
      ),
    ).toBe('ResourceNotFoundException');
    expect(
      await code(
        ddb.send(
          new TransactGetItemsCommand({
            TransactItems: [
              { Get: { TableName: 'accounts', Key: key('a') } },
              { Get: { TableName: 'accounts', Key: key('a') } },
            ],
          }),
        ),
      ),
    ).toBe('ValidationException');
  });
});

describe('ExecuteStatement (PartiQL)', () => {
  const run = (
    Statement: string,
    Parameters?: Record<string, unknown>[],
    extra: Record<string, unknown> = {},
  ) =>
    ddb.send(
      new ExecuteStatementCommand({
        Statement,
        Parameters: Parameters as ExecuteStatementInput['Parameters'],
        ...extra,
      }),
    );

  it('inserts, selects, updates and deletes with parameters and literals', async () => {
    await run(
      `INSERT INTO "accounts" VALUE {'id': ?, 'balance': 10, 'tags': <<'a', 'b'>>, 'owner': {'name': 'ann'}}`,
      [{ S: 'a' }],
    );
    await run(`INSERT INTO accounts VALUE {'id': 'b', 'balance': 3}`);
    expect((await failure(run(`INSERT INTO "accounts" VALUE {'id': 'b'}`))).name).toBe(
      'DuplicateItemException',
    );

    const all = await run(`SELECT * FROM "accounts" WHERE balance > ?`, [{ N: '5' }]);
    expect(all.Items).toEqual([
      {
        id: { S: 'a' },
        balance: { N: '10' },
        tags: { SS: ['a', 'b'] },
        owner: { M: { name: { S: 'ann' } } },
      },
    ]);
    const projected = await run(
      `SELECT id, owner.name FROM "accounts" WHERE id IN ['a', 'b'] AND begins_with(id, 'a')`,
    );
    expect(projected.Items).toEqual([{ id: { S: 'a' }, owner: { M: { name: { S: 'ann' } } } }]);

    await run(`UPDATE "accounts" SET balance = balance + ? SET note = 'paid' REMOVE tags WHERE id = ?`, [
      { N: '5' },
      { S: 'a' },
    ]);
    expect(await get('accounts', 'a')).toEqual({
      id: { S: 'a' },
      balance: { N: '15' },
      note: { S: 'paid' },
      owner: { M: { name: { S: 'ann' } } },
    });
    // A WHERE that does not hold, or a missing item, fails the update.
    expect(
      (await failure(run(`UPDATE "accounts" SET balance = 0 WHERE id = 'a' AND balance < 1`))).name,
    ).toBe('ConditionalCheckFailedException');
    expect((await failure(run(`UPDATE "accounts" SET balance = 0 WHERE id = 'zz'`))).name).toBe(
      'ConditionalCheckFailedException',
    );

    await run(`DELETE FROM "accounts" WHERE id = ?`, [{ S: 'b' }]);
    await run(`DELETE FROM "accounts" WHERE id = 'missing'`);
    expect(await get('accounts', 'b')).toBeUndefined();

    // Pages of SELECT through Limit / NextToken.
    await run(`INSERT INTO "accounts" VALUE {'id': 'c'}`);
    const first = await run(`SELECT id FROM "accounts"`, undefined, { Limit: 1 });
    expect(first.Items).toHaveLength(1);
    const second = await run(`SELECT id FROM "accounts"`, undefined, {
      Limit: 1,
      NextToken: first.NextToken,
    });
    expect(second.Items).toHaveLength(1);
    expect(second.Items![0]).not.toEqual(first.Items![0]);
  });

  it('refuses what DynamoDB refuses', async () => {
    const code = async (p: Promise<unknown>) => (await failure(p)).name;
    expect(await code(run(`SELEKT * FROM "accounts"`))).toBe('ValidationException');
    expect(await code(run(`UPDATE "accounts" SET balance = 1 WHERE balance = 2`))).toBe(
      'ValidationException',
    );
    expect(await code(run(`SELECT * FROM "nope"`))).toBe('ResourceNotFoundException');
    expect(await code(run(`SELECT * FROM "accounts" WHERE id = ?`))).toBe('ValidationException');
  });
});
