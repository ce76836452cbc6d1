"""placeholder"""
class TracedLayer: pass
