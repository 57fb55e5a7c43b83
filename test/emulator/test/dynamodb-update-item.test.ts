/**
 * DynamoDB UpdateItem through the real SDK: SET (values, arithmetic,
 * if_not_exists, list_append, nested paths), REMOVE, ADD and DELETE on
 * numbers and sets, the item created when missing, conditions, every
 * ReturnValues choice, and the validation errors DynamoDB answers; then Query
 * and Scan read what UpdateItem wrote.
 */
import {
  CreateTableCommand,
  DynamoDBClient,
  GetItemCommand,
  QueryCommand,
  ScanCommand,
  UpdateItemCommand,
  type UpdateItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import { clientConfig, useEmulator } from './helpers';

const ctx = useEmulator();
let ddb: DynamoDBClient;
const TABLE = 'orders';
const key = (sk: number) => ({ pk: { S: 'customer#1' }, sk: { N: String(sk) } });

beforeAll(async () => {
  ddb = new DynamoDBClient(clientConfig(ctx.emulator));
});
afterAll(() => ddb.destroy());
beforeEach(async () => {
  await ctx.emulator.control.reset();
  await ddb.send(
    new CreateTableCommand({
      TableName: TABLE,
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'N' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
});

const update = (input: Omit<UpdateItemCommandInput, 'TableName'>) =>
  ddb.send(new UpdateItemCommand({ TableName: TABLE, ...input }));
const item = async (sk: number) =>
  (await ddb.send(new GetItemCommand({ TableName: TABLE, Key: key(sk) }))).Item;

describe('UpdateItem', () => {
  it('creates a missing item from its key and the SET actions, and returns ALL_NEW', async () => {
    const out = await update({
      Key: key(1),
      UpdateExpression: 'SET #s = :s, total = :zero, tags = :tags, lines = :lines, address = :address',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: {
        ':s': { S: 'new' },
        ':zero': { N: '0' },
        ':tags': { SS: ['a'] },
        ':lines': { L: [{ S: 'first' }] },
        ':address': { M: { city: { S: 'Lyon' } } },
      },
      ReturnValues: 'ALL_NEW',
    });
    expect(out.Attributes).toEqual({
      ...key(1),
      status: { S: 'new' },
      total: { N: '0' },
      tags: { SS: ['a'] },
      lines: { L: [{ S: 'first' }] },
      address: { M: { city: { S: 'Lyon' } } },
    });
    expect(await item(1)).toEqual(out.Attributes);
  });

  it('adds and subtracts exactly, appends to lists, writes nested paths, keeps an existing value with if_not_exists', async () => {
    await update({
      Key: key(2),
      UpdateExpression: 'SET total = :t, lines = :l, address = :a, created = :c',
      ExpressionAttributeValues: {
        ':t': { N: '0.1' },
        ':l': { L: [{ S: 'one' }] },
        ':a': { M: { city: { S: 'Lyon' } } },
        ':c': { S: 'monday' },
      },
    });
    const out = await update({
      Key: key(2),
      UpdateExpression:
        'SET total = total + :p, lines = list_append(lines, :more), address.zip = :zip, created = if_not_exists(created, :c), seen = if_not_exists(seen, :c), left = :ten - total',
      ExpressionAttributeValues: {
        ':p': { N: '0.2' },
        ':more': { L: [{ S: 'two' }] },
        ':zip': { S: '69001' },
        ':c': { S: 'tuesday' },
        ':ten': { N: '10' },
      },
      ReturnValues: 'UPDATED_NEW',
    });
    expect(out.Attributes).toEqual({
      total: { N: '0.3' },
      lines: { L: [{ S: 'one' }, { S: 'two' }] },
      address: { M: { zip: { S: '69001' } } },
      created: { S: 'monday' },
      seen: { S: 'tuesday' },
      left: { N: '9.9' },
    });
    expect((await item(2))!.address).toEqual({ M: { city: { S: 'Lyon' }, zip: { S: '69001' } } });
  });

  it('REMOVEs attributes and list elements, ADDs to numbers and sets, DELETEs from sets (an emptied set is removed)', async () => {
    await update({
      Key: key(3),
      UpdateExpression: 'SET note = :n, lines = :l, tags = :t, codes = :c',
      ExpressionAttributeValues: {
        ':n': { S: 'x' },
        ':l': { L: [{ S: 'a' }, { S: 'b' }, { S: 'c' }] },
        ':t': { SS: ['red', 'blue'] },
        ':c': { NS: ['1'] },
      },
    });
    const out = await update({
      Key: key(3),
      UpdateExpression: 'REMOVE note, lines[0], lines[2] ADD visits :one, tags :green DELETE codes :c',
      ExpressionAttributeValues: {
        ':one': { N: '1' },
        ':green': { SS: ['green', 'red'] },
        ':c': { NS: ['1'] },
      },
      ReturnValues: 'UPDATED_OLD',
    });
    // UPDATED_OLD: what the touched attributes were (visits did not exist).
    expect(out.Attributes).toEqual({
      note: { S: 'x' },
      lines: { L: [{ S: 'a' }, { S: 'b' }, { S: 'c' }] },
      tags: { SS: ['red', 'blue'] },
      codes: { NS: ['1'] },
    });
    const now = (await item(3))!;
    expect(now.note).toBeUndefined();
    expect(now.codes).toBeUndefined();
    expect(now.lines).toEqual({ L: [{ S: 'b' }] });
    expect(now.visits).toEqual({ N: '1' });
    expect([...now.tags!.SS!].sort()).toEqual(['blue', 'green', 'red']);
    await update({
      Key: key(3),
      UpdateExpression: 'ADD visits :two',
      ExpressionAttributeValues: { ':two': { N: '2' } },
    });
    expect((await item(3))!.visits).toEqual({ N: '3' });
  });

  it('applies a condition, and returns ALL_OLD', async () => {
    await update({
      Key: key(4),
      UpdateExpression: 'SET v = :one',
      ExpressionAttributeValues: { ':one': { N: '1' } },
    });
    const optimistic = (expected: string, next: string) =>
      update({
        Key: key(4),
        UpdateExpression: 'SET v = :next',
        ConditionExpression: 'v = :expected',
        ExpressionAttributeValues: { ':next': { N: next }, ':expected': { N: expected } },
        ReturnValues: 'ALL_OLD',
      });
    expect((await optimistic('1', '2')).Attributes).toEqual({ ...key(4), v: { N: '1' } });
    await expect(optimistic('1', '3')).rejects.toMatchObject({
      name: 'ConditionalCheckFailedException',
      $metadata: { httpStatusCode: 400 },
    });
    expect((await item(4))!.v).toEqual({ N: '2' });
    await expect(
      update({
        Key: key(5),
        UpdateExpression: 'SET v = :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':one': { N: '1' } },
      }),
    ).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    expect(await item(5)).toBeUndefined();
  });

  it('is read back by Query and Scan', async () => {
    for (const sk of [1, 2, 3])
      await update({
        Key: key(sk),
        UpdateExpression: 'ADD qty :q',
        ExpressionAttributeValues: { ':q': { N: String(sk * 10) } },
      });
    const q = await ddb.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk AND sk >= :from',
        FilterExpression: 'qty > :min',
        ExpressionAttributeValues: { ':pk': { S: 'customer#1' }, ':from': { N: '2' }, ':min': { N: '20' } },
      }),
    );
    expect(q.Items!.map((i) => i.qty)).toEqual([{ N: '30' }]);
    expect(q.ScannedCount).toBe(2);
    const s = await ddb.send(new ScanCommand({ TableName: TABLE, Select: 'COUNT' }));
    expect(s.Count).toBe(3);
  });

  it('answers the validation errors DynamoDB gives', async () => {
    const invalid = async (input: Omit<UpdateItemCommandInput, 'TableName'>, message: RegExp) =>
      expect(update(input)).rejects.toMatchObject({
        name: 'ValidationException',
        message: expect.stringMatching(message),
      });
    const v = { ':v': { N: '1' } };
    await invalid(
      { Key: key(1), UpdateExpression: 'SET pk = :v', ExpressionAttributeValues: v },
      /Cannot update attribute pk\. This attribute is part of the key/,
    );
    await invalid(
      { Key: key(1), UpdateExpression: 'SET a = :v, a.b = :v', ExpressionAttributeValues: v },
      /Two document paths overlap/,
    );
    await invalid(
      { Key: key(1), UpdateExpression: 'SET a = :v SET b = :v', ExpressionAttributeValues: v },
      /"SET" section can only be used once/,
    );
    await invalid(
      {
        Key: key(1),
        UpdateExpression: 'SET a = :v',
        ExpressionAttributeValues: { ...v, ':unused': { S: 'x' } },
      },
      /unused in expressions: keys: \{:unused\}/,
    );
    await invalid(
      { Key: key(1), UpdateExpression: 'SET a = :missing', ExpressionAttributeValues: v },
      /not defined; attribute value: :missing/,
    );
    await invalid(
      { Key: key(1), UpdateExpression: 'ADD a :s', ExpressionAttributeValues: { ':s': { S: 'x' } } },
      /operator: ADD, operand type: S/,
    );
    await invalid(
      {
        Key: key(1),
        UpdateExpression: 'SET a = :s + :v',
        ExpressionAttributeValues: { ...v, ':s': { S: 'x' } },
      },
      /incorrect data type/,
    );
    await invalid(
      { Key: key(1), UpdateExpression: 'SET a.b.c = :v', ExpressionAttributeValues: v },
      /document path provided in the update expression is invalid for update/,
    );
    await invalid(
      { Key: key(1), UpdateExpression: 'SET a = missing_attr', ExpressionAttributeValues: undefined },
      /refers to an attribute that does not exist/,
    );
    await invalid(
      { Key: key(1), UpdateExpression: 'SET = :v', ExpressionAttributeValues: v },
      /Syntax error/,
    );
    await invalid(
      { Key: { pk: { S: 'customer#1' } }, UpdateExpression: 'SET a = :v', ExpressionAttributeValues: v },
      /key element does not match the schema/,
    );
    await expect(
      ddb.send(
        new UpdateItemCommand({
          TableName: 'missing',
          Key: key(1),
          UpdateExpression: 'SET a = :v',
          ExpressionAttributeValues: v,
        }),
      ),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    expect(await item(1)).toBeUndefined();
  });
});
