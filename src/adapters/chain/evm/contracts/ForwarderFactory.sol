// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

// Deposit addresses for EVM invoices, in the manner of BitGo's ForwarderV4 and Coinbase Commerce:
// every invoice gets CREATE2(factory, salt, keccak256(Forwarder creation code)) as its address, and
// nothing is deployed there until the hot wallet sweeps it. A sweep deploys a Forwarder whose
// constructor hands the address's whole balance to the receiver and self-destructs, all in one
// transaction, so the address is empty and code-free again afterwards and can be paid and swept
// any number of times.
//
// Changing a single byte of Forwarder (or of this factory) changes every deposit address and the
// factory's own address: money already paid to addresses of the old code could then only be swept
// by deploying the old factory again. Treat the compiled artifacts as a frozen format.

/// The two ERC-20 reads and writes a sweep needs; `transfer` is called low-level (see Forwarder).
interface IERC20Minimal {
    function balanceOf(address account) external view returns (uint256);
    function transfer(address to, uint256 amount) external returns (bool);
}

/// What a Forwarder asks its deployer while it is being constructed.
interface IForwarderParams {
    function forwarderParams() external view returns (address token, address receiver);
}

/// Lives only for the duration of its own constructor.
contract Forwarder {
    /// The token's `transfer` returned normally but said `false` (or something that is not a bool).
    error TransferRefused(address token);

    // No constructor arguments on purpose: they would be part of the init code, so the address
    // would differ per token. Reading the parameters back from the deployer keeps one address per
    // salt for the native coin and every token (the Uniswap v3 pool-deployer pattern).
    constructor() {
        (address token, address receiver) = IForwarderParams(msg.sender).forwarderParams();
        if (token != address(0)) {
            uint256 amount = IERC20Minimal(token).balanceOf(address(this));
            if (amount != 0) {
                // Low-level, because USDT on Ethereum mainnet and other old tokens return no
                // bool from `transfer`: a typed call would fail to decode their empty return data.
                (bool ok, bytes memory returned) =
                    token.call(abi.encodeCall(IERC20Minimal.transfer, (receiver, amount)));
                if (!ok) {
                    // Keep the token's own reason (a blocklist, a pause) for whoever reads the revert.
                    assembly ("memory-safe") {
                        revert(add(returned, 32), mload(returned))
                    }
                }
                if (returned.length != 0 && (returned.length < 32 || abi.decode(returned, (uint256)) != 1)) {
                    revert TransferRefused(token);
                }
            }
        }
        // solc warns that selfdestruct is deprecated. We rely on exactly what is left of it since
        // EIP-6780 (Cancun): an account created and self-destructed in the same transaction is
        // deleted, so the salt can be deployed again by the next sweep, and the native coin at the
        // address (the whole point of a native sweep, a bonus for a token sweep) goes to the
        // receiver without needing a payable receive path in the forwarder.
        selfdestruct(payable(receiver));
    }
}

/// Deploys forwarders at deposit addresses and is the only place their money can go.
contract ForwarderFactory is IForwarderParams {
    /// Where every sweep sends the money, and the only account allowed to start one.
    address public immutable receiver;

    /// keccak256 of the Forwarder's creation code: part of every deposit address.
    bytes32 public immutable forwarderInitCodeHash;

    // The token of the sweep in progress, for forwarderParams(); zero between sweeps and during a
    // native-coin sweep. Ordinary storage, not transient storage (EIP-1153), by project decision:
    // the slot goes back to zero before the sweep ends, which refunds most of the write's cost.
    address private sweepToken;

    /// `amount` of `token` (address(0): the native coin) left `forwarder` for the receiver.
    event Swept(address indexed token, address indexed forwarder, uint256 amount);

    /// Someone other than the receiver called sweep.
    error NotReceiver();
    /// The constructor was given address(0) as receiver: swept money would be burnt.
    error ZeroReceiver();

    constructor(address receiver_) {
        if (receiver_ == address(0)) revert ZeroReceiver();
        receiver = receiver_;
        forwarderInitCodeHash = keccak256(type(Forwarder).creationCode);
    }

    /// Moves the whole balance of `token` (address(0): the native coin) at the deposit address of
    /// each salt to the receiver, in this one transaction. Addresses holding none of it are skipped,
    /// so a salt listed twice, or one not paid yet, costs a balance read and nothing else.
    function sweep(address token, bytes32[] calldata salts) external {
        // Only the receiver: a stranger's sweep would still pay the receiver, but the service must
        // decide when deposit addresses are emptied, or its view of what is left to sweep changes
        // under it.
        if (msg.sender != receiver) revert NotReceiver();
        if (token != address(0)) sweepToken = token;
        for (uint256 i = 0; i < salts.length; ++i) {
            address forwarder = _forwarderAddress(salts[i]);
            uint256 amount = _balanceOf(token, forwarder);
            if (amount == 0) continue;
            // A failing forwarder reverts the whole sweep with its reason: partial sweeps would
            // leave the caller guessing which addresses were emptied.
            new Forwarder{salt: salts[i]}();
            emit Swept(token, forwarder, amount);
        }
        if (token != address(0)) sweepToken = address(0);
    }

    /// The parameters of the sweep in progress, read by each Forwarder's constructor.
    function forwarderParams() external view returns (address token, address receiver_) {
        return (sweepToken, receiver);
    }

    /// The deposit address of `salt`, whether or not anything was ever paid or deployed there.
    function forwarderAddress(bytes32 salt) external view returns (address) {
        return _forwarderAddress(salt);
    }

    /// Balances of `token` (address(0): the native coin) of many accounts in one eth_call.
    function balancesOf(address token, address[] calldata accounts) external view returns (uint256[] memory balances) {
        balances = new uint256[](accounts.length);
        for (uint256 i = 0; i < accounts.length; ++i) {
            balances[i] = _balanceOf(token, accounts[i]);
        }
    }

    function _forwarderAddress(bytes32 salt) private view returns (address) {
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, forwarderInitCodeHash)))));
    }

    function _balanceOf(address token, address account) private view returns (uint256) {
        return token == address(0) ? account.balance : IERC20Minimal(token).balanceOf(account);
    }
}
