'use strict';
// Handler shipped as a directory asset by the lambda-asset-app example.
module.exports.handler = async (event) => ({
  statusCode: 200,
  body: JSON.stringify({ hello: 'from cdkd', event }),
});
