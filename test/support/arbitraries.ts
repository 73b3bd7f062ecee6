/** The snapshot arbitraries now live in the public testing toolkit (`chat-realm/testing/arbitraries`). */
export { arbSnapshot, type SnapshotShape } from '../../src/testing/arbitraries';
