// Both ends check tool arguments with the SDK's AJV validator (the client before sending, the
// demo server on receipt); its messages name the root "data". Say "arguments" and name the field.
export function argumentsMessage(ajvMessage: string | undefined): string {
  return (ajvMessage ?? 'invalid').replace(/\bdata\//g, '').replace(/\bdata\b/g, 'arguments');
}
