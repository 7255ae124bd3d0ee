package dev.basalt.simulator.harness;

/**
 * Loads that wait for the older stores' addresses. A CPU runs a load before an older store whose address is not yet
 * known, betting they do not overlap; when the store's address comes and they do, it clears the machine and runs
 * the load again. In BHive's harness every register holds 0x2324000, so a block's store and a later load often hit
 * the same bytes, and when the store's address comes later than the load's (it waits for a load or a divide, the
 * load's registers are ready) the bet is lost every iteration. What the blocks measure then is what a CPU that has
 * stopped betting does: each load waits until every older store's address is known. The chain that makes is what
 * they take, though no value flows along it: {@code mov rcx, [rsp+0x28]; mov [rcx+0xe8], rax; mov rdx,
 * [r15+0xe8]; mov esi, r13d; mov edi, r12d} measured 5.79 cycles an iteration on Haswell (BHive), a load and the
 * store's address (5 + 1), where the machine without the wait gave 1.56; {@code mov rax, [rdx+0x20]; xor edx, edx;
 * div qword [r12+8]; mov rax, r13; mov [rcx+rdx*8], rbx; add rax, [r12]; lea rdx, [r12+0x10]; mov [rax], rdx}
 * 53.40, the divide, the store's address, the forwarding and the next iteration's loads, against 21.00.
 *
 * <p>BHive's training and validation blocks where a load reads an older store of its iteration whose address comes
 * later, by the sum of latencies, than the load's own: without the wait the machine was below the measurement on
 * nearly all of them, mean error (signed) -26.7% (-26.7%) on Haswell's 17, 12.4% (-12.0%) on Skylake's 12, 27.7%
 * (-27.4%) on Ivy Bridge's 12; with it 7.5% (-4.2%), 25.6% (+11.1%: one Skylake block, {@code mov rax,
 * [r13+0x2a0]; mov dword [r13+0x2d0], 0; mov [rax+8], ebx; mov r8d, [rdi+8]; test r8d, r8d}, measured 1.95
 * where the wait makes 6.00) and 24.2% (-11.4%). Golden Cove and Zen hold a load predicted to read a store in the
 * load buffer until that store instead, and their measured blocks show no such wait ({@code mov rax, [rsp+0x98];
 * mov rdi, r14; xor r12b, r12b; mov [rax], r14; mov rdx, [r14]}: 1.15 cycles on the Xeon 6, 1.49 on Zen 5), so the
 * rule is off there (the block facts' {@code loadsWaitForStoreAddresses}).
 */
public final class StoreAddressWait {

    private StoreAddressWait() {
    }

    /**
     * Whether a load of the block reads bytes an older store of the same iteration writes ({@code memorySource},
     * not loop-carried) and that store's address registers come later than the load's: the sum of latencies along
     * the iteration's register and memory sources (inputs from before the iteration ready at 0).
     *
     * @param start     per instruction, the first of its sources (and {@code start[n]} the count)
     * @param producers per source, the producer and 1 when it is the previous iteration's
     */
    public static boolean caught(int n, int[] start, int[] producers, boolean[] memorySource, boolean[] addressSource,
                                 boolean[] loading, boolean[] storing, int[] latency) {
        long[] done = new long[n];
        long[] address = new long[n];
        boolean any = false;
        for (int i = 0; i < n; i++) {
            long ready = 0;
            for (int k = start[i]; k < start[i + 1]; k++) {
                if (producers[2 * k + 1] != 0) {
                    continue;
                }
                int p = producers[2 * k];
                ready = Math.max(ready, done[p]);
                if (addressSource[k]) {
                    address[i] = Math.max(address[i], done[p]);
                }
                any |= memorySource[k] && loading[i] && storing[p] && p < i;
            }
            done[i] = ready + Math.max(0, latency[i]);
        }
        if (!any) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            for (int k = start[i]; k < start[i + 1]; k++) {
                int p = producers[2 * k];
                if (memorySource[k] && producers[2 * k + 1] == 0 && loading[i] && storing[p] && p < i
                        && address[p] > address[i]) {
                    return true;
                }
            }
        }
        return false;
    }
}
