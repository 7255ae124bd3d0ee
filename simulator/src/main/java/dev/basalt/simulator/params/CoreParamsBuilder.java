package dev.basalt.simulator.params;

import dev.basalt.simulator.harness.StoreCommit;

import java.util.List;

/**
 * Builds a {@link CoreParams} by name, one parameter at a time — as uiCA's configurations name theirs — starting
 * from nothing ({@link CoreParams#builder()}) or from another CPU's parameters ({@link CoreParams#toBuilder()}).
 * {@link CoreParams}' constructor checks the result.
 */
public final class CoreParamsBuilder {

    private int predecodeBytes;
    private int predecodeWidth;
    private int lcpPenalty;
    private int instructionQueue;
    private int decoders;
    private int decodeUops;
    private int msSwitchCycles;
    private int msUopsPerCycle;
    private int microcodedAbove;
    private int uopQueue;
    private int issueWidth;
    private int retireWidth;
    private int moveEliminationSlots;
    private int moveEliminationCycles;
    private int storeForwardLatency;
    private CoreParams.Unlamination unlamination;
    private String loadPorts;
    private String storeAddressPorts;
    private String storeDataPorts;
    private String slowLeaPorts;
    private int slowLeaLatency;
    private int storeForwardFailPenalty;
    private int lockCycles;
    private boolean cacheBanks;
    private List<String> falseOutputDependencies;
    private CoreParams.LoopFrontEnd loop;
    private Dividers dividers;
    private Fences fences;
    private boolean memoryRenaming;
    private Integer pageWalkCycles;
    private CoreParams.PortBinding portBinding;
    private CoreParams.PopRspDecoding popRspDecoding;
    private ImmediateElimination immediateElimination;
    private boolean slidingFetch;
    private int decodeImmediates;
    private boolean forwardToWaitingLoads;
    private int sameBankLoads;
    private DenseCode denseCode;
    private StoreCommit storeCommit;
    private int rmwForwardLatency;
    private Integer x87AssistCycles;
    private Boolean ripComplexDecode;
    private Integer vectorForwardCycles;
    private Integer dirtyUpperMerge;

    CoreParamsBuilder() {
    }

    CoreParamsBuilder(CoreParams c) {
        this.predecodeBytes = c.predecodeBytes();
        this.predecodeWidth = c.predecodeWidth();
        this.lcpPenalty = c.lcpPenalty();
        this.instructionQueue = c.instructionQueue();
        this.decoders = c.decoders();
        this.decodeUops = c.decodeUops();
        this.msSwitchCycles = c.msSwitchCycles();
        this.msUopsPerCycle = c.msUopsPerCycle();
        this.microcodedAbove = c.microcodedAbove();
        this.uopQueue = c.uopQueue();
        this.issueWidth = c.issueWidth();
        this.retireWidth = c.retireWidth();
        this.moveEliminationSlots = c.moveEliminationSlots();
        this.moveEliminationCycles = c.moveEliminationCycles();
        this.storeForwardLatency = c.storeForwardLatency();
        this.unlamination = c.unlamination();
        this.loadPorts = c.loadPorts();
        this.storeAddressPorts = c.storeAddressPorts();
        this.storeDataPorts = c.storeDataPorts();
        this.slowLeaPorts = c.slowLeaPorts();
        this.slowLeaLatency = c.slowLeaLatency();
        this.storeForwardFailPenalty = c.storeForwardFailPenalty();
        this.lockCycles = c.lockCycles();
        this.cacheBanks = c.cacheBanks();
        this.falseOutputDependencies = c.falseOutputDependencies();
        this.loop = c.loop();
        this.dividers = c.dividers();
        this.fences = c.fences();
        this.memoryRenaming = c.memoryRenaming();
        this.pageWalkCycles = c.pageWalkCycles();
        this.portBinding = c.portBinding();
        this.popRspDecoding = c.popRspDecoding();
        this.immediateElimination = c.immediateElimination();
        this.slidingFetch = c.slidingFetch();
        this.decodeImmediates = c.decodeImmediates();
        this.forwardToWaitingLoads = c.forwardToWaitingLoads();
        this.sameBankLoads = c.sameBankLoads();
        this.denseCode = c.denseCode();
        this.storeCommit = c.storeCommit();
        this.rmwForwardLatency = c.rmwForwardLatency();
        this.x87AssistCycles = c.x87AssistCycles();
        this.ripComplexDecode = c.ripComplexDecode();
        this.vectorForwardCycles = c.vectorForwardCycles();
        this.dirtyUpperMerge = c.dirtyUpperMerge();
    }

    public CoreParamsBuilder predecodeBytes(int predecodeBytes) {
        this.predecodeBytes = predecodeBytes;
        return this;
    }

    public CoreParamsBuilder predecodeWidth(int predecodeWidth) {
        this.predecodeWidth = predecodeWidth;
        return this;
    }

    public CoreParamsBuilder lcpPenalty(int lcpPenalty) {
        this.lcpPenalty = lcpPenalty;
        return this;
    }

    public CoreParamsBuilder instructionQueue(int instructionQueue) {
        this.instructionQueue = instructionQueue;
        return this;
    }

    public CoreParamsBuilder decoders(int decoders) {
        this.decoders = decoders;
        return this;
    }

    public CoreParamsBuilder decodeUops(int decodeUops) {
        this.decodeUops = decodeUops;
        return this;
    }

    public CoreParamsBuilder msSwitchCycles(int msSwitchCycles) {
        this.msSwitchCycles = msSwitchCycles;
        return this;
    }

    public CoreParamsBuilder msUopsPerCycle(int msUopsPerCycle) {
        this.msUopsPerCycle = msUopsPerCycle;
        return this;
    }

    public CoreParamsBuilder microcodedAbove(int microcodedAbove) {
        this.microcodedAbove = microcodedAbove;
        return this;
    }

    public CoreParamsBuilder uopQueue(int uopQueue) {
        this.uopQueue = uopQueue;
        return this;
    }

    public CoreParamsBuilder issueWidth(int issueWidth) {
        this.issueWidth = issueWidth;
        return this;
    }

    public CoreParamsBuilder retireWidth(int retireWidth) {
        this.retireWidth = retireWidth;
        return this;
    }

    public CoreParamsBuilder moveEliminationSlots(int moveEliminationSlots) {
        this.moveEliminationSlots = moveEliminationSlots;
        return this;
    }

    public CoreParamsBuilder moveEliminationCycles(int moveEliminationCycles) {
        this.moveEliminationCycles = moveEliminationCycles;
        return this;
    }

    public CoreParamsBuilder storeForwardLatency(int storeForwardLatency) {
        this.storeForwardLatency = storeForwardLatency;
        return this;
    }

    public CoreParamsBuilder unlamination(CoreParams.Unlamination unlamination) {
        this.unlamination = unlamination;
        return this;
    }

    public CoreParamsBuilder loadPorts(String loadPorts) {
        this.loadPorts = loadPorts;
        return this;
    }

    public CoreParamsBuilder storeAddressPorts(String storeAddressPorts) {
        this.storeAddressPorts = storeAddressPorts;
        return this;
    }

    public CoreParamsBuilder storeDataPorts(String storeDataPorts) {
        this.storeDataPorts = storeDataPorts;
        return this;
    }

    public CoreParamsBuilder slowLeaPorts(String slowLeaPorts) {
        this.slowLeaPorts = slowLeaPorts;
        return this;
    }

    public CoreParamsBuilder slowLeaLatency(int slowLeaLatency) {
        this.slowLeaLatency = slowLeaLatency;
        return this;
    }

    public CoreParamsBuilder storeForwardFailPenalty(int storeForwardFailPenalty) {
        this.storeForwardFailPenalty = storeForwardFailPenalty;
        return this;
    }

    public CoreParamsBuilder lockCycles(int lockCycles) {
        this.lockCycles = lockCycles;
        return this;
    }

    public CoreParamsBuilder cacheBanks(boolean cacheBanks) {
        this.cacheBanks = cacheBanks;
        return this;
    }

    public CoreParamsBuilder falseOutputDependencies(List<String> falseOutputDependencies) {
        this.falseOutputDependencies = falseOutputDependencies;
        return this;
    }

    public CoreParamsBuilder loop(CoreParams.LoopFrontEnd loop) {
        this.loop = loop;
        return this;
    }

    public CoreParamsBuilder dividers(Dividers dividers) {
        this.dividers = dividers;
        return this;
    }

    public CoreParamsBuilder fences(Fences fences) {
        this.fences = fences;
        return this;
    }

    public CoreParamsBuilder memoryRenaming(boolean memoryRenaming) {
        this.memoryRenaming = memoryRenaming;
        return this;
    }

    public CoreParamsBuilder pageWalkCycles(Integer pageWalkCycles) {
        this.pageWalkCycles = pageWalkCycles;
        return this;
    }

    public CoreParamsBuilder portBinding(CoreParams.PortBinding portBinding) {
        this.portBinding = portBinding;
        return this;
    }

    public CoreParamsBuilder popRspDecoding(CoreParams.PopRspDecoding popRspDecoding) {
        this.popRspDecoding = popRspDecoding;
        return this;
    }

    public CoreParamsBuilder immediateElimination(ImmediateElimination immediateElimination) {
        this.immediateElimination = immediateElimination;
        return this;
    }

    public CoreParamsBuilder slidingFetch(boolean slidingFetch) {
        this.slidingFetch = slidingFetch;
        return this;
    }

    public CoreParamsBuilder decodeImmediates(int decodeImmediates) {
        this.decodeImmediates = decodeImmediates;
        return this;
    }

    public CoreParamsBuilder forwardToWaitingLoads(boolean forwardToWaitingLoads) {
        this.forwardToWaitingLoads = forwardToWaitingLoads;
        return this;
    }

    public CoreParamsBuilder sameBankLoads(int sameBankLoads) {
        this.sameBankLoads = sameBankLoads;
        return this;
    }

    public CoreParamsBuilder denseCode(DenseCode denseCode) {
        this.denseCode = denseCode;
        return this;
    }

    public CoreParamsBuilder storeCommit(StoreCommit storeCommit) {
        this.storeCommit = storeCommit;
        return this;
    }

    public CoreParamsBuilder rmwForwardLatency(int rmwForwardLatency) {
        this.rmwForwardLatency = rmwForwardLatency;
        return this;
    }

    public CoreParamsBuilder x87AssistCycles(Integer x87AssistCycles) {
        this.x87AssistCycles = x87AssistCycles;
        return this;
    }

    public CoreParamsBuilder ripComplexDecode(Boolean ripComplexDecode) {
        this.ripComplexDecode = ripComplexDecode;
        return this;
    }

    public CoreParamsBuilder vectorForwardCycles(Integer vectorForwardCycles) {
        this.vectorForwardCycles = vectorForwardCycles;
        return this;
    }

    public CoreParamsBuilder dirtyUpperMerge(Integer dirtyUpperMerge) {
        this.dirtyUpperMerge = dirtyUpperMerge;
        return this;
    }

    /** The parameters, checked ({@link CoreParams}' constructor). */
    public CoreParams build() {
        return new CoreParams(predecodeBytes, predecodeWidth, lcpPenalty, instructionQueue, decoders, decodeUops,
                msSwitchCycles, msUopsPerCycle, microcodedAbove, uopQueue, issueWidth, retireWidth,
                moveEliminationSlots, moveEliminationCycles, storeForwardLatency, unlamination, loadPorts,
                storeAddressPorts, storeDataPorts, slowLeaPorts, slowLeaLatency, storeForwardFailPenalty, lockCycles,
                cacheBanks, falseOutputDependencies, loop, dividers, fences, memoryRenaming, pageWalkCycles,
                portBinding, popRspDecoding, immediateElimination, slidingFetch, decodeImmediates,
                forwardToWaitingLoads, sameBankLoads, denseCode, storeCommit, rmwForwardLatency, x87AssistCycles,
                ripComplexDecode, vectorForwardCycles, dirtyUpperMerge);
    }
}
