// Word lists and phrases for the bundled ShareGPT-format sample, written for this project (no text is taken
// from ShareGPT or any other data set). Kept apart from the generator so its logic stays readable.

export const TOPICS: readonly string[] = [
  'a rate limiter',
  'database indexes',
  'HTTP caching',
  'unit testing',
  'a retry policy',
  'connection pooling',
  'garbage collection',
  'event loops',
  'load balancing',
  'feature flags',
  'log rotation',
  'schema migrations',
  'message queues',
  'backpressure',
  'a CSV importer',
  'password hashing',
  'time zones',
  'floating point rounding',
  'container images',
  'a sourdough starter',
  'marathon training',
  'a vegetable garden',
  'home insulation',
  'a job interview',
  'a budget spreadsheet',
  'learning the guitar',
  'a team offsite',
  'a product launch',
  'bird watching',
  'a road trip',
];

export const OPENERS: readonly string[] = [
  'Can you explain',
  'How do I get started with',
  'What is the best way to think about',
  'Give me a short overview of',
  'I keep getting confused by',
  'Write a checklist for',
  'What are common mistakes with',
  'Compare two approaches to',
  'Help me plan',
  'Summarize the trade-offs of',
];

export const SUBJECTS: readonly string[] = [
  'the team',
  'a careful reader',
  'the first version',
  'every request',
  'the scheduler',
  'a new user',
  'the old system',
  'this approach',
  'the cache',
  'our test suite',
  'the morning routine',
  'a small change',
  'the final draft',
  'each step',
];

export const VERBS: readonly string[] = [
  'reduces',
  'explains',
  'measures',
  'replaces',
  'protects',
  'delays',
  'simplifies',
  'reveals',
  'needs',
  'improves',
  'tracks',
  'avoids',
  'combines',
  'checks',
];

export const OBJECTS: readonly string[] = [
  'the slowest path',
  'most of the noise',
  'an honest baseline',
  'the hidden cost',
  'a clear boundary',
  'the shared state',
  'every edge case',
  'the expected load',
  'a second opinion',
  'the original goal',
  'the daily budget',
  'a useful default',
  'the error budget',
  'the longest queue',
];

export const CONNECTORS: readonly string[] = [
  'In practice,',
  'For example,',
  'As a rule,',
  'Even so,',
  'Most of the time,',
  'In short,',
  'On the other hand,',
  'Step by step,',
  'Later on,',
  'Before anything else,',
];

export const IDENTIFIERS: readonly string[] = [
  'items',
  'queue',
  'limit',
  'total',
  'buffer',
  'record',
  'retries',
  'window',
  'deadline',
  'payload',
  'cursor',
  'budget',
];

export const FUNCTION_NAMES: readonly string[] = [
  'parseRow',
  'mergeRanges',
  'nextDeadline',
  'splitBatch',
  'countWords',
  'retryWithBackoff',
  'normalizeName',
  'averageLatency',
  'groupByDay',
  'trimHistory',
];

/** Sentences for Chinese conversations (originals for this sample). */
export const CHINESE_SENTENCES: readonly string[] = [
  '请帮我解释一下这个问题的原因。',
  '我想在周末整理一下家里的书架。',
  '这段代码在高并发时会变慢，应该怎么排查？',
  '首先要确认服务是否真的启动成功。',
  '然后用少量请求做一次冒烟测试。',
  '如果成功率低于九成，先看失败的原因。',
  '延迟抖动很大时，通常说明并发设得太高。',
  '我们可以把配置写进一个文件，方便以后复用。',
  '每次只改一个参数，这样结果才容易比较。',
  '记录下每一次测试的时间和版本号。',
  '这个方法简单，但是在数据量大时不够快。',
  '可以先把数据按天分组，再计算平均值。',
  '学习一门新语言最重要的是每天坚持练习。',
  '今天的天气很好，适合去公园散步。',
  '请用三句话总结这篇文章的主要观点。',
  '缓存可以减少重复计算，但要注意过期时间。',
  '遇到问题时，先写下你已经尝试过的办法。',
  '这个计划分为准备、执行和复盘三个阶段。',
  '把大任务拆成小任务，会更容易开始。',
  '最后别忘了检查日志里有没有报错。',
];

export const EMOJI: readonly string[] = ['😀', '🚀', '🎉', '🤔', '👍', '🔥', '✅', '📈', '🌱', '☕', '🐛', '💡'];

export const GREETINGS: readonly string[] = ['hi', 'hello!', 'thanks', 'ok', 'yes', 'cool 👍', 'hey there'];
