import type { CompletionContext, CompletionResult, CompletionSource } from '@codemirror/autocomplete';
import { syntaxTree } from '@codemirror/language';

type Schema = Record<string, unknown>;

/** Every step type the schema's WorkflowStep alternatives name (each alternative fixes `stepType` to one). */
export function stepTypesOf(schema: Schema | undefined): string[] {
  const step = (schema?.definitions as Record<string, Schema> | undefined)?.WorkflowStep;
  const alternatives = (step?.oneOf as Schema[] | undefined) ?? [];
  return alternatives.flatMap((alt) => ((alt.properties as Record<string, Schema> | undefined)?.stepType?.enum as string[] | undefined) ?? []);
}

/**
 * Completion of a `"stepType": "…"` value with every step type. The schema
 * completion (codemirror-json-schema) resolves WorkflowStep's `oneOf` by the
 * step's current data and offers the one type of the alternative it picks;
 * inside a stepType value this source answers instead, and elsewhere `fallback` does.
 */
export function withStepTypeCompletion(types: string[], fallback: (context: CompletionContext) => CompletionResult | never[] | null): CompletionSource {
  return (context: CompletionContext): CompletionResult | null | Promise<CompletionResult | null> => {
    const node = syntaxTree(context.state).resolveInner(context.pos, -1);
    const property = node.name === 'String' ? node.parent : null;
    const key = property?.name === 'Property' ? property.firstChild : null;
    if (!key || key.name !== 'PropertyName' || context.state.sliceDoc(key.from, key.to) !== '"stepType"' || property!.lastChild?.from !== node.from) {
      // The library answers [] for nothing to offer; CodeMirror takes that as it took it before.
      return fallback(context) as CompletionResult | null;
    }
    const closed = node.to - node.from > 1 && context.state.sliceDoc(node.to - 1, node.to) === '"';
    return {
      from: node.from + 1,
      to: closed ? node.to - 1 : node.to,
      options: types.map((type) => ({ label: type, type: 'enum' })),
      validFor: /^[\w.-]*$/,
    };
  };
}
