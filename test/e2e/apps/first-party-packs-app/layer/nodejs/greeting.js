// Shared code the app's Lambda function gets from its layer.
'use strict';
module.exports = { greeting: 'hello from the layer' };
