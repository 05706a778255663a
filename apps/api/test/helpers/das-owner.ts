/** The owner DAS `getAsset` answers for `assetId` at `rpcUrl` (the localnet serves DAS from its own chain). */
export async function dasOwner(rpcUrl: string, assetId: string): Promise<string | undefined> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getAsset", params: { id: assetId } }),
  });
  const body = (await response.json()) as { result?: { ownership: { owner: string } } };
  return body.result?.ownership.owner;
}
