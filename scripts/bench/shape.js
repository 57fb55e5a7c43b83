// @ts-check
/**
 * The resource graphs of the deploy benchmarks, independent of the CDK: which
 * resources a synthetic stack has, of which type, and which one each refers to.
 * `synthetic-app.js` turns them into L1 constructs.
 */
'use strict';

/** Resource types per type set, and the route cdkd provisions each through. */
const TYPE_SETS = {
  // Both routes: three Cloud Control types and one provider-pack type.
  scale: ['AWS::SSM::Parameter', 'AWS::SNS::Topic', 'AWS::Logs::LogGroup', 'AWS::SQS::Queue'],
  // Cloud Control only, one latency per type (see ORCHESTRATION_LATENCY_MS).
  orchestration: [
    'AWS::SSM::Parameter',
    'AWS::SNS::Topic',
    'AWS::Logs::LogGroup',
    'AWS::Events::EventBus',
    'AWS::ECR::Repository',
  ],
};

/** Route per type: `sdk` = the bundled SQS provider pack, `cc-api` = Cloud Control. */
const ROUTES = {
  'AWS::SSM::Parameter': 'cc-api',
  'AWS::SNS::Topic': 'cc-api',
  'AWS::Logs::LogGroup': 'cc-api',
  'AWS::SQS::Queue': 'sdk',
  'AWS::Events::EventBus': 'cc-api',
  'AWS::ECR::Repository': 'cc-api',
};

/** Cloud Control latency (request → SUCCESS) per type in the orchestration benchmark. */
const ORCHESTRATION_LATENCY_MS = {
  'AWS::SSM::Parameter': 1000,
  'AWS::SNS::Topic': 2000,
  'AWS::Logs::LogGroup': 3000,
  'AWS::Events::EventBus': 4000,
  'AWS::ECR::Repository': 5000,
};

/** @param {string} name */
function resourceTypesOf(name) {
  const types = TYPE_SETS[/** @type {keyof typeof TYPE_SETS} */ (name)];
  if (!types) throw new Error(`unknown type set "${name}" (expected ${Object.keys(TYPE_SETS).join(' or ')})`);
  return types;
}

/**
 * @typedef {{ id: string, type: string, after?: string }} ShapeNode
 *   `after`: the resource this one refers to (its only dependency).
 */

/**
 * The nodes of a synthetic stack.
 * - wide: `size` independent resources, types in rotation.
 * - deep: `chains` chains of (nearly) equal length, `size` resources in all;
 *   resource j of chain k refers to resource j-1 of chain k; its type is
 *   types[(k + j) % types.length], so every chain mixes the types.
 * @param {{ size: number, shape: string, chains?: number, types: string[] }} options
 * @returns {ShapeNode[]}
 */
function shapeOf({ size, shape, chains = 10, types }) {
  if (!Number.isInteger(size) || size < 1) throw new Error(`size must be a positive integer (got ${size})`);
  const pad = (n, width) => String(n).padStart(width, '0');
  if (shape === 'wide') {
    const width = String(size - 1).length;
    return Array.from({ length: size }, (_, i) => ({
      id: `R${pad(i, width)}`,
      type: types[i % types.length],
    }));
  }
  if (shape === 'deep') {
    if (!Number.isInteger(chains) || chains < 1 || chains > size)
      throw new Error(`chains must be an integer between 1 and size (got ${chains})`);
    const nodes = [];
    const longest = Math.ceil(size / chains);
    const cw = String(chains - 1).length;
    const lw = String(longest - 1).length;
    for (let k = 0; k < chains; k++) {
      const length = Math.floor(size / chains) + (k < size % chains ? 1 : 0);
      for (let j = 0; j < length; j++) {
        nodes.push({
          id: `C${pad(k, cw)}N${pad(j, lw)}`,
          type: types[(k + j) % types.length],
          ...(j > 0 ? { after: `C${pad(k, cw)}N${pad(j - 1, lw)}` } : {}),
        });
      }
    }
    return nodes;
  }
  throw new Error(`unknown shape "${shape}" (expected wide or deep)`);
}

module.exports = { TYPE_SETS, ROUTES, ORCHESTRATION_LATENCY_MS, resourceTypesOf, shapeOf };
