/**
 * Runs once before the whole suite. Each piece of shared infrastructure (the mini-benchmark, Docker) has
 * its own setup function so that a single test file can also be run alone.
 */
export default async function setup(): Promise<void> {}
