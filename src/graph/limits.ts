import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { MaxTokensParserWLexer } from '@escape.tech/graphql-armor-max-tokens';
import type { GraphQLArmorCallbackConfiguration } from '@escape.tech/graphql-armor-types';
import { GraphQLError, type DocumentNode, type ValidationContext, type ValidationRule } from 'graphql';
import { nulField } from '../errors/nul.js';
import { ruleKey, translate } from '../i18n/messages.js';
import { databaseCostRule } from './database-cost.js';

/**
 * Bounds of a GraphQL document, checked before anything runs (parse, then validation).
 * Every named operation of schema/operations/ stays far inside them (test/graph/limits.test.ts).
 */
export const DOCUMENT_LIMITS = {
  /** Lexical tokens (graphql-armor max-tokens; the parser stops at the first one over). */
  tokens: 2000,
  /** Field depth, fragments flattened (graphql-armor max-depth). */
  depth: 10,
  /** Aliases, through fragments (graphql-armor max-aliases). */
  aliases: 15,
  /** Shape cost: objects 2, scalars 1, ×1.5 per level (graphql-armor cost-limit). */
  cost: 5000,
  /** Database cost: statements and rows the document may make the database read (./database-cost.ts). */
  databaseCost: 1000,
} as const;

/** Armor rules report through the validation context instead of throwing out of `validate`. */
const report: GraphQLArmorCallbackConfiguration = {
  propagateOnRejection: false,
  onReject: [(ctx: ValidationContext | null, err: GraphQLError) => ctx?.reportError(err)],
};

/** Rule options that also hand each accepted measure to `measured` (the limits test reads them). */
function withMeasure(name: string, measured?: (name: string, n: number) => void): GraphQLArmorCallbackConfiguration {
  return measured ? { ...report, onAccept: [(_ctx, details: { n: number }) => measured(name, details.n)] } : report;
}

/** The validation rules both engines add to graphql's own. */
export function documentRules(measured?: (name: string, n: number) => void): ValidationRule[] {
  return [
    maxDepthRule({ n: DOCUMENT_LIMITS.depth, flattenFragments: true, ...withMeasure('depth', measured) }),
    maxAliasesRule({ n: DOCUMENT_LIMITS.aliases, ...withMeasure('aliases', measured) }),
    costLimitRule({ maxCost: DOCUMENT_LIMITS.cost, ...withMeasure('cost', measured) }),
    databaseCostRule(DOCUMENT_LIMITS.databaseCost, measured && ((n) => measured('databaseCost', n))),
    noNulLiterals,
  ];
}

/**
 * A string literal of the document holding NUL (`"\u0000"` decodes to it) is refused like a NUL in
 * a variable (errors/nul.ts, CONTRACT §11), naming its argument or input field.
 */
const noNulLiterals: ValidationRule = (ctx) => {
  const names: string[] = [];
  const push = (node: { name: { value: string } }) => void names.push(node.name.value);
  const pop = () => void names.pop();
  return {
    Argument: { enter: push, leave: pop },
    ObjectField: { enter: push, leave: pop },
    StringValue(node) {
      if (nulField(node.value, '') === null) return;
      const field = names.join('.') || 'query';
      ctx.reportError(new GraphQLError(translate('en', { key: ruleKey('no_nul'), params: { field } }), { nodes: [node] }));
    },
  };
};

/** Parses with the token bound; a document over it throws a GraphQLError naming the limit. */
export function parseBounded(source: string): DocumentNode {
  return new MaxTokensParserWLexer(source, { n: DOCUMENT_LIMITS.tokens }).parseDocument();
}

/** graphql's own parse option with the same bound, for the engines' parsers. */
export const PARSE_OPTIONS = { maxTokens: DOCUMENT_LIMITS.tokens } as const;
