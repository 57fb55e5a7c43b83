exports.greeting = 'hello from the layer';
