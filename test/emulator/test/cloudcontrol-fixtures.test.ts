import {
  CloudControlClient,
  CreateResourceCommand,
  GetResourceCommand,
  GetResourceRequestStatusCommand,
  UpdateResourceCommand,
  type ProgressEvent,
} from '@aws-sdk/client-cloudcontrol';
import * as path from 'node:path';
import { clientConfig, useEmulator } from './helpers';

// Hand-written schemas exercise what the generated ones may not: nested read-only
// attributes, multi-part identifiers, anyOf, $ref definitions.
const ctx = useEmulator({ schemasDir: path.join(__dirname, 'fixtures', 'schemas') });
let cc: CloudControlClient;

beforeAll(() => {
  cc = new CloudControlClient(clientConfig(ctx.emulator, 'eu-west-1'));
});
afterAll(() => cc.destroy());

async function run(command: CreateResourceCommand | UpdateResourceCommand): Promise<ProgressEvent> {
  const out = await cc.send(command as CreateResourceCommand);
  const { ProgressEvent: event } = await cc.send(
    new GetResourceRequestStatusCommand({ RequestToken: out.ProgressEvent!.RequestToken! }),
  );
  return event!;
}

test('nested read-only attributes and the ARN template are generated', async () => {
  const event = await run(
    new CreateResourceCommand({
      TypeName: 'Emulator::Test::Widget',
      DesiredState: JSON.stringify({
        WidgetName: 'w1',
        Size: 2,
        Settings: { Enabled: true, Labels: { a: 'b' } },
      }),
    }),
  );
  expect(event).toMatchObject({ OperationStatus: 'SUCCESS', Identifier: 'w1' });
  const props = JSON.parse(
    (await cc.send(new GetResourceCommand({ TypeName: 'Emulator::Test::Widget', Identifier: 'w1' })))
      .ResourceDescription!.Properties!,
  ) as Record<string, unknown>;
  expect(props).toMatchObject({
    WidgetName: 'w1',
    Size: 2,
    Arn: 'arn:aws:emulator:eu-west-1:123456789012:widget/w1',
    Endpoint: { Address: expect.stringContaining('.test.eu-west-1.amazonaws.com'), Port: 443 },
    WidgetId: expect.stringMatching(/^WIDG[A-Z0-9]{17}$/),
  });
});

test('a generated name when the identifier property is absent; $ref definitions are validated', async () => {
  const event = await run(
    new CreateResourceCommand({
      TypeName: 'Emulator::Test::Widget',
      DesiredState: JSON.stringify({ Size: 1 }),
    }),
  );
  expect(event.Identifier).toMatch(/^Widget-[A-Z0-9]{12}$/);
  await expect(
    run(
      new CreateResourceCommand({
        TypeName: 'Emulator::Test::Widget',
        DesiredState: JSON.stringify({ Size: 1, Settings: { Labels: { a: 1 } } }),
      }),
    ),
  ).rejects.toMatchObject({
    name: 'ValidationException',
    message: 'Model validation failed (#/Settings/Labels/a: expected type: String, found: Integer)',
  });
  await expect(
    run(
      new CreateResourceCommand({
        TypeName: 'Emulator::Test::Widget',
        DesiredState: JSON.stringify({ Size: 1, Endpoint: { Address: 'x' } }),
      }),
    ),
  ).rejects.toMatchObject({
    name: 'ValidationException',
    message: expect.stringContaining('/properties/Endpoint/Address'),
  });
});

test('multi-part identifiers are joined with "|"; anyOf accepts either type', async () => {
  const event = await run(
    new CreateResourceCommand({
      TypeName: 'Emulator::Test::Link',
      DesiredState: JSON.stringify({ Parent: 'p', Child: 'c', Weight: 'heavy' }),
    }),
  );
  expect(event).toMatchObject({ OperationStatus: 'SUCCESS', Identifier: 'p|c' });
  const got = await cc.send(new GetResourceCommand({ TypeName: 'Emulator::Test::Link', Identifier: 'p|c' }));
  expect(JSON.parse(got.ResourceDescription!.Properties!)).toEqual({
    Parent: 'p',
    Child: 'c',
    Weight: 'heavy',
  });
  await expect(
    run(
      new CreateResourceCommand({
        TypeName: 'Emulator::Test::Link',
        DesiredState: JSON.stringify({ Parent: 'p', Child: 'd', Weight: true }),
      }),
    ),
  ).rejects.toMatchObject({
    name: 'ValidationException',
    message: 'Model validation failed (#/Weight: #: no subschema matched out of the total 2 subschemas)',
  });
  await expect(
    run(
      new UpdateResourceCommand({
        TypeName: 'Emulator::Test::Link',
        Identifier: 'p|c',
        PatchDocument: JSON.stringify([{ op: 'replace', path: '/Parent', value: 'q' }]),
      }),
    ),
  ).rejects.toMatchObject({
    name: 'NotUpdatableException',
  });
  const weighted = await run(
    new UpdateResourceCommand({
      TypeName: 'Emulator::Test::Link',
      Identifier: 'p|c',
      PatchDocument: JSON.stringify([{ op: 'replace', path: '/Weight', value: 3 }]),
    }),
  );
  expect(weighted.OperationStatus).toBe('SUCCESS');
});

test('a type outside the schemas folder is TypeNotFoundException', async () => {
  await expect(
    cc.send(new CreateResourceCommand({ TypeName: 'AWS::SQS::Queue', DesiredState: '{}' })),
  ).rejects.toMatchObject({ name: 'TypeNotFoundException' });
});
