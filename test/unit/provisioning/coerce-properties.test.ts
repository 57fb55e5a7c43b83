import { coerceProperties, stripNulls } from '../../../src/provisioning/coerce-properties';
import type { SchemaDocument } from '../../../src/provisioning/coerce-properties';

const schema: SchemaDocument = {
  properties: {
    Timeout: { type: 'integer' },
    Ratio: { type: 'number' },
    Enabled: { type: 'boolean' },
    Name: { type: 'string' },
    Tags: { type: 'array', items: { $ref: '#/definitions/Tag' } },
    Env: { type: 'object', additionalProperties: { type: 'string' } },
    Policy: {},
    Either: { anyOf: [{ type: 'string' }, { type: 'object', properties: { Port: { type: 'integer' } } }] },
  },
  definitions: {
    Tag: {
      type: 'object',
      properties: { Key: { type: 'string' }, Value: { type: 'string' }, Weight: { type: 'integer' } },
    },
  },
};

describe('coerceProperties', () => {
  it('converts template scalars to the schema types, as CloudFormation does', () => {
    expect(
      coerceProperties(
        {
          Timeout: '300',
          Ratio: '0.5',
          Enabled: 'true',
          Name: 42,
          Tags: [{ Key: 'k', Value: 7, Weight: '3' }],
          Env: { A: 1, B: true },
          Policy: { Version: '2012-10-17', N: '1' },
          Either: { Port: '80' },
        },
        schema,
      ),
    ).toEqual({
      Timeout: 300,
      Ratio: 0.5,
      Enabled: true,
      Name: '42',
      Tags: [{ Key: 'k', Value: '7', Weight: 3 }],
      Env: { A: '1', B: 'true' },
      Policy: { Version: '2012-10-17', N: '1' },
      Either: { Port: 80 },
    });
  });

  it('leaves values it cannot convert for Cloud Control to refuse', () => {
    expect(coerceProperties({ Timeout: 'soon', Enabled: 'yes' }, schema)).toEqual({
      Timeout: 'soon',
      Enabled: 'yes',
    });
  });

  it('strips nulls at every depth', () => {
    expect(coerceProperties({ Name: null, Tags: [null, { Key: 'a', Value: null }] }, schema)).toEqual({
      Tags: [{ Key: 'a' }],
    });
    expect(stripNulls({ a: [1, null], b: { c: null } })).toEqual({ a: [1], b: {} });
  });

  it('without a schema only strips nulls', () => {
    expect(coerceProperties({ A: '1', B: null }, undefined)).toEqual({ A: '1' });
  });
});
