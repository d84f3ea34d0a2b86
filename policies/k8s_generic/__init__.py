"""Generic Kubernetes checks from the catalogue's general table (rows G<n>)."""


class AnyKubernetesType(tuple):
    """The resource types of a policy over every object: each `kubernetes:*` type token (`in` tests the prefix)."""

    def __contains__(self, item: object) -> bool:
        return isinstance(item, str) and item.startswith("kubernetes:")

    def __bool__(self) -> bool:
        return True


ANY_KUBERNETES_TYPE = AnyKubernetesType(("kubernetes:*",))
